package fabric

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A calendar books the earliest gap that holds a transfer, after every
// transfer asked for no later: data booked ahead does not hold up a store
// asked for before it, and a stream keeps its order.
func TestCalendarGapsAndOrder(t *testing.T) {
	var c Calendar
	// Data booked at 1000 for 100.
	assert.Equal(t, Time(1100), c.Book(1000, 100))
	// A store asked for at 10 goes at once, before it.
	assert.Equal(t, Time(20), c.Book(10, 10))
	// One too large for the gap (20..1000) goes after the data.
	assert.Equal(t, Time(2100), c.Book(15, 1000))
	// The next of its stream follows it though it would fit in the gap.
	assert.Equal(t, Time(2110), c.Book(15, 10))
	// One asked for earlier than all of them takes the gap before the
	// first store if it fits there, else the next one.
	assert.Equal(t, Time(30), c.Book(4, 10))
	assert.Equal(t, Time(5), c.Book(0, 5))
	// Back to back in the order asked: one interval.
	var d Calendar
	for k := range Time(100) {
		assert.Equal(t, 10*(k+1), d.Book(k, 10))
	}
	assert.Equal(t, 1, d.n)
}

// The calendar keeps at most calendarBookings intervals; the oldest become
// a floor that nothing starts before.
func TestCalendarFloor(t *testing.T) {
	var c Calendar
	for k := range Time(calendarBookings + 1) {
		c.Book(100*(k+1), 10) // separate intervals 100..110, 200..210, ...
		if k == 0 {
			assert.Len(t, c.b, calendarFirst, "room made for the first few")
		}
	}
	assert.Equal(t, calendarBookings, c.n)
	assert.Len(t, c.b, calendarBookings, "room grown to the most it keeps")
	assert.Equal(t, Time(110), c.floor)
	// (A booking on a full calendar first drops the oldest interval.)
	assert.Equal(t, Time(220), c.Book(0, 10), "not before the floor")
}

// A ring of Times reads zero until a slot is set, and makes only the
// pieces of the slots set.
func TestTimesPieces(t *testing.T) {
	var s Times
	assert.Zero(t, s.At(40))
	assert.Zero(t, s.Bytes())
	s.Set(40, 64, 7)
	s.Set(41, 64, 9)
	assert.Equal(t, Time(7), s.At(40))
	assert.Equal(t, Time(9), s.At(41))
	assert.Zero(t, s.At(0))
	assert.Zero(t, s.At(63))
	assert.Equal(t, int64(4*8+timesPiece*8), s.Bytes(), "one piece of four")
}

// Book skips, by a binary search, the bookings that end by the time
// asked for (Calendar.ended): over random bookings, of times both in and
// out of order, the calendar full or not, the skipped ones change nothing
// (gap from the first booking gives what gap from the first not ended
// does).
func TestCalendarSkipsEndedBookings(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	skipped, full := 0, 0
	for run := range 200 {
		var c Calendar
		now := Time(0)
		for k := range 400 {
			now += Time(rng.IntN(40))
			at := now + Time(rng.IntN(200)) // a read's data, booked ahead
			if rng.IntN(2) == 0 {
				at = now // a store, now
			}
			d := Time(1 + rng.IntN(60))
			if c.n == calendarBookings {
				full++
			}
			lo := c.ended(at)
			skipped += lo
			for i := range lo {
				require.LessOrEqual(t, c.b[i].to, at)
			}
			if lo < c.n {
				require.Greater(t, c.b[lo].to, at)
			}
			wantStart, wantI := c.gap(at, d, 0)
			start, i := c.gap(at, d, lo)
			require.Equal(t, wantStart, start, "run %d, booking %d", run, k)
			require.Equal(t, wantI, i, "run %d, booking %d", run, k)
			c.Book(at, d)
		}
	}
	require.Greater(t, skipped, 10000, "bookings ended by the time asked for")
	require.Greater(t, full, 1000, "bookings made with the calendar full")
}
