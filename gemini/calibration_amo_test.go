package gemini_test

import (
	"testing"

	"github.com/gopgas/gopgas/bench/calibration/caltest"
)

// G-AMO-HIT, G-AMO-MISS, G-MSG-RATE: atomic and message rates.
func TestCalibrationRates(t *testing.T) {
	caltest.NotUnderRace(t)
	checkRows(t, "G-AMO-HIT", "G-AMO-MISS", "G-MSG-RATE")
}
