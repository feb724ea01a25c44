package gemini_test

import (
	"testing"

	"github.com/gopgas/gopgas/bench/calibration/caltest"
)

func checkRows(t *testing.T, ids ...string) { t.Helper(); caltest.CheckRows(t, ids...) }

func long(t *testing.T) { t.Helper(); caltest.Long(t) }
