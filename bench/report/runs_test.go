package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// RunsFigure draws every run: each point is the median over the runs,
// with the smallest and largest as its band; a run's NaN is left out; an
// interrupted last run that lacks a size still counts where it has one.
func TestRunsFigureMedianAndBand(t *testing.T) {
	var runs []*Run
	for i, scale := range []float64{1, 3, 2, 1.5} {
		run := bwRun()
		for j := range run.Result.Points {
			run.Result.Points[j].Value *= scale
		}
		if i == 2 {
			run.Result.Points[0].Value = math.NaN()
		}
		if i == 3 {
			run.Result.Points = run.Result.Points[:1] // interrupted
		}
		runs = append(runs, run)
	}
	f, err := RunsFigure(runs)
	require.NoError(t, err)
	require.Len(t, f.Series, 1)
	s := f.Series[0]
	v0, v1 := bwRun().Result.Points[0].Value, bwRun().Result.Points[1].Value
	assert.Equal(t, []float64{1, 1024, 4 << 20}, s.X)
	assert.InDelta(t, 1.5*v0, s.Y[0], 1e-9, "median of 1, 3 and 1.5 (the NaN left out)")
	assert.InDelta(t, 2*v1, s.Y[1], 1e-9, "median of 1, 3 and 2")
	assert.InDelta(t, v0, s.Lo[0], 1e-9)
	assert.InDelta(t, 3*v0, s.Hi[0], 1e-9)
	assert.InDelta(t, 3*v1, s.Hi[1], 1e-9)
	assert.Contains(t, f.Title, "median of 4 runs")
	var svg bytes.Buffer
	require.NoError(t, f.WriteTo(&svg, "svg"))

	one, err := RunsFigure(runs[:1])
	require.NoError(t, err)
	assert.Nil(t, one.Series[0].Lo, "one run has no band")
	assert.Equal(t, ResultFigure(runs[0].Result).Series, one.Series)

	at1, at2, at3 := atomicsRun(), atomicsRun(), atomicsRun()
	at2.Atomics[0].Rate, at3.Atomics[0].Rate = 20, 10
	f, err = RunsFigure([]*Run{at1, at2, at3})
	require.NoError(t, err)
	assert.Equal(t, Bar{Label: "add", Group: "int64", Value: 12.345, Lo: 10, Hi: 20}, f.Bars[0])
	assert.Equal(t, Bar{Label: "fxor", Group: "uint32", Value: 1.5, Lo: 1.5, Hi: 1.5}, f.Bars[1])
	svg.Reset()
	require.NoError(t, f.WriteTo(&svg, "svg"))
	assert.True(t, strings.Contains(svg.String(), "median of 3 runs"))

	_, err = RunsFigure(nil)
	assert.Error(t, err)
}

// Spread: the median of an odd and an even count, NaN and infinities
// left out, NaN for none.
func TestSpread(t *testing.T) {
	assert.Equal(t, SpreadOf{2, 1, 5}, Spread([]float64{5, 1, 2}))
	assert.Equal(t, SpreadOf{2.5, 1, 5}, Spread([]float64{5, 1, 2, 3, math.NaN(), math.Inf(1)}))
	assert.True(t, math.IsNaN(Spread([]float64{math.NaN()}).Median))
}
