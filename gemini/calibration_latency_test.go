package gemini_test

import "testing"

// G-LAT-PUT, G-LAT-GET, G-LAT-MSG, G-HOP: latency of small operations and
// its growth per router hop.
func TestCalibrationLatency(t *testing.T) {
	checkRows(t, "G-LAT-PUT", "G-LAT-GET", "G-LAT-MSG", "G-HOP")
}
