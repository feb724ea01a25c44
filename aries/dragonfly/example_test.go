package dragonfly_test

import (
	"fmt"

	"github.com/gopgas/gopgas/aries/dragonfly"
)

// ExampleDragonfly_Minimal routes between two nodes of Table 3's 16-cabinet
// system.
func ExampleDragonfly_Minimal() {
	d, err := dragonfly.ForCabinets(16, 12)
	if err != nil {
		panic(err)
	}
	src, _ := d.AriesOfNode(0)
	dst, _ := d.AriesAt(dragonfly.AriesLoc{Group: 5, Chassis: 3, Slot: 9})
	p, _ := d.Minimal(src, dst, 0)
	fmt.Println(len(p), "hops:", p.Count(dragonfly.LinkGreen), "green,", p.Count(dragonfly.LinkBlack), "black,", p.Count(dragonfly.LinkGlobal), "global")
	// Output: 3 hops: 1 green, 1 black, 1 global
}
