package gemini_test

import (
	"testing"

	"github.com/gopgas/gopgas/bench/calibration/caltest"
)

// G-NIC-BW, G-HT-FMA, G-HT-BTE, G-LINK-RAW, G-LINK-EFF, G-LINK-BW,
// G-P2P-BW: the NIC's, the host interface's and the links' bandwidths.
func TestCalibrationBandwidth(t *testing.T) {
	caltest.NotUnderRace(t)
	checkRows(t, "G-NIC-BW", "G-HT-FMA", "G-HT-BTE", "G-LINK-RAW", "G-LINK-EFF", "G-LINK-BW", "G-P2P-BW")
}
