package gemini_test

import "testing"

// G-REG, G-BOUNCE, G-DYNREG: memory registration and what transfers from
// outside the registered segment cost.
func TestCalibrationRegistration(t *testing.T) {
	checkRows(t, "G-REG")
	long(t)
	checkRows(t, "G-BOUNCE", "G-DYNREG")
}
