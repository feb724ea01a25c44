package report

import (
	"fmt"
	"io"
	"strings"
)

// Format is an output format of pgasbench.
type Format uint8

const (
	// OSU is the OSU Micro-Benchmarks' text (the default).
	OSU Format = iota
	// CSV is comma-separated values with one header row.
	CSV
	// JSON is one Record object.
	JSON
	// GoBench is the `go test -bench` text format that benchstat reads.
	GoBench
)

// Formats are the formats by name, in the order of the help text.
var Formats = []Format{OSU, CSV, JSON, GoBench}

func (f Format) String() string {
	switch f {
	case OSU:
		return "osu"
	case CSV:
		return "csv"
	case JSON:
		return "json"
	case GoBench:
		return "gobench"
	}
	return fmt.Sprintf("Format(%d)", uint8(f))
}

// ParseFormat parses "osu", "csv", "json" or "gobench" (also "benchstat").
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "osu", "text", "":
		return OSU, nil
	case "csv":
		return CSV, nil
	case "json":
		return JSON, nil
	case "gobench", "benchstat", "go":
		return GoBench, nil
	}
	return OSU, fmt.Errorf("format %q: not osu, csv, json or gobench", s)
}

// Write prints run in format f.
func Write(w io.Writer, f Format, run *Run) error {
	switch f {
	case OSU:
		return WriteOSU(w, run)
	case CSV:
		return WriteCSV(w, run)
	case JSON:
		return WriteJSON(w, run)
	case GoBench:
		return WriteGoBench(w, run)
	}
	return fmt.Errorf("report: unknown format %v", f)
}
