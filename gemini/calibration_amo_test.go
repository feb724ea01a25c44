package gemini_test

import "testing"

// G-AMO-HIT, G-AMO-MISS, G-MSG-RATE: atomic and message rates.
func TestCalibrationRates(t *testing.T) {
	checkRows(t, "G-AMO-HIT", "G-AMO-MISS", "G-MSG-RATE")
}
