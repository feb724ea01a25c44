//go:build unix && !linux && !race

package segmem

// mapNoReserve: other systems do not reserve anonymous mappings up front
// (or have no flag to ask them not to).
const mapNoReserve = 0
