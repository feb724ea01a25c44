package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/gopgas/gopgas/pgas"
)

func main() {
	greeting := flag.String("greeting", "hello", "the word each PE says")
	flag.Parse()
	pgas.Main(pgas.Config{}, func(pe *pgas.PE) error { return hello(pe, *greeting) })
}

func hello(pe *pgas.PE, greeting string) error {
	for r := range pe.Size() {
		if r == pe.Rank() {
			if _, err := fmt.Fprintf(os.Stdout, "%s from PE %d of %d (node %d)\n", greeting, pe.Rank(), pe.Size(), pe.Node()); err != nil {
				return fmt.Errorf("printing the greeting: %w", err)
			}
		}
		// PE r's line is written before anyone passes this barrier.
		if err := pe.Barrier(); err != nil {
			return fmt.Errorf("barrier after PE %d's greeting: %w", r, err)
		}
	}
	// A sanity check that every PE took part: the PEs count themselves.
	count := []int64{1}
	if err := pgas.Allreduce(pe.World(), pgas.Sum, count, count); err != nil {
		return fmt.Errorf("counting the PEs: %w", err)
	}
	if count[0] != int64(pe.Size()) {
		return fmt.Errorf("%d PEs counted themselves in a job of %d", count[0], pe.Size())
	}
	if pe.Rank() == 0 {
		if _, err := fmt.Fprintf(os.Stdout, "hello: %d PEs on %d node(s), %s backend\n", pe.Size(), pe.Nodes(), pe.Conduit()); err != nil {
			return fmt.Errorf("printing the summary: %w", err)
		}
	}
	return nil
}
