package aries_test

import (
	"testing"

	"github.com/gopgas/gopgas/bench/calibration/caltest"
)

// The A-* rows of the calibration sheet (bench/calibration/aries.go), grouped as the
// sheet groups them.

// A-NIC-BW, A-PCIE, A-TILE, A-FLITS, A-EFF: the NIC, host interface and
// link figures.
func TestCalibrationStructure(t *testing.T) {
	caltest.Long(t)
	caltest.CheckRows(t, "A-NIC-BW", "A-PCIE", "A-TILE", "A-FLITS", "A-EFF", "A-IOMMU", "A-FMA-DESC", "A-CE-SHAPE")
}

// A-GROUP, A-MINHOPS, A-BISECT, A-GLOBAL, A-GREEN: the Dragonfly.
func TestCalibrationTopology(t *testing.T) {
	caltest.CheckRows(t, "A-GROUP", "A-MINHOPS", "A-BISECT", "A-GLOBAL", "A-GREEN")
}

// A-LAT-PUT, A-LAT-GET, A-LAT-MSG, A-HOP, A-LAT-MAX: latencies.
func TestCalibrationLatency(t *testing.T) {
	caltest.Long(t)
	caltest.CheckRows(t, "A-LAT-PUT", "A-LAT-GET", "A-LAT-MSG", "A-HOP", "A-LAT-MAX")
}

// A-BW-UNI, A-BW-BI, A-SYM, A-HALF: bandwidth.
func TestCalibrationBandwidth(t *testing.T) {
	caltest.Long(t)
	caltest.CheckRows(t, "A-BW-UNI", "A-BW-BI", "A-SYM", "A-HALF")
}

// A-RATE, A-OUTST, A-AMO, A-AMO-CACHE: rates.
func TestCalibrationRates(t *testing.T) {
	caltest.Long(t)
	caltest.CheckRows(t, "A-RATE", "A-OUTST", "A-AMO", "A-AMO-CACHE")
}

// A-CE: an offloaded allreduce on 12,000 PEs.
func TestCalibrationCollectiveEngine(t *testing.T) {
	caltest.Long(t)
	caltest.CheckRows(t, "A-CE")
}
