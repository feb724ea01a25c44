package gemini_test

import "testing"

// The ordering study's added sweeps: FMA puts by PEs per node
// ([GEMINI-HOTI] Figure 8), large FMA gets by PEs per node ([ORDERING]
// III.A), shared vs non-shared gets ([ORDERING] Figure 9):
// G-FMA-PPN, G-FMA-BIG, G-NONSHARED, G-1S-SAT.
func TestCalibrationStudySweeps(t *testing.T) {
	long(t)
	checkRows(t, "G-FMA-PPN", "G-FMA-BIG", "G-NONSHARED", "G-1S-SAT")
}
