package gemini_test

import "testing"

// G-CLK, G-PHIT, G-BISECT, G-TOPO, G-BTE-CONC: clocks, packet sizes,
// topologies and the block-transfer engine's concurrency.
func TestCalibrationStructure(t *testing.T) {
	checkRows(t, "G-CLK", "G-PHIT", "G-BISECT", "G-TOPO", "G-BTE-CONC")
}
