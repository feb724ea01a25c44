package gemini_test

import "testing"

// The ordering study of [ORDERING] section III:
// G-XOVER, G-PUT-GET, G-ORD-PEAK, G-ORD-RATIO, G-ORD-MONO, G-ORD-DEF.
func TestCalibrationOrderingStudy(t *testing.T) {
	long(t)
	checkRows(t, "G-XOVER", "G-PUT-GET", "G-ORD-PEAK", "G-ORD-RATIO", "G-ORD-MONO", "G-ORD-DEF")
}
