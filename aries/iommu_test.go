package aries

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A-IOMMU: the PTE cache's shape and the translation levels.
func TestIOMMUShape(t *testing.T) {
	assert.Equal(t, 4, PTECacheWays)
	assert.Equal(t, 128, PTECacheEntries)
	assert.Equal(t, 8, PTEsPerEntry)
	assert.Equal(t, 2, PageLevels(SmallPageBytes))
	assert.Equal(t, 1, PageLevels(HugePageBytes))
	assert.Equal(t, 1, PageLevels(1<<30))
}

// Walking pages in order, an entry serves eight pages: one miss in eight.
func TestIOMMUSequential(t *testing.T) {
	var c PTECache
	reads := 0
	for p := range int64(64) {
		r, err := c.Translate(1, p*SmallPageBytes+100, SmallPageBytes)
		require.NoError(t, err)
		reads += r
	}
	hits, misses := c.Stats()
	assert.Equal(t, int64(56), hits)
	assert.Equal(t, int64(8), misses)
	assert.Equal(t, 16, reads, "two levels per miss")
}

// Random accesses over a large target: with 4 KB pages nearly every one
// misses (and costs two host reads); with huge pages the whole target's
// PTEs fit in the cache.
func TestIOMMURandomSmallVersusHugePages(t *testing.T) {
	const target = 1 << 30
	rate := func(page int64) (float64, int) {
		var c PTECache
		rng := rand.New(rand.NewPCG(1, 2))
		reads := 0
		for range 20000 {
			r, err := c.Translate(7, rng.Int64N(target), page)
			require.NoError(t, err)
			reads += r
		}
		h, m := c.Stats()
		return float64(h) / float64(h+m), reads
	}
	small, smallReads := rate(SmallPageBytes)
	huge, hugeReads := rate(HugePageBytes)
	assert.Less(t, small, 0.01)
	assert.Greater(t, huge, 0.99)
	assert.Greater(t, smallReads, 100*hugeReads)
}

// Four ways: a fifth entry in a set evicts the least recently used one.
func TestIOMMUEvictsLRU(t *testing.T) {
	var c PTECache
	// Offsets of five page groups of domain 3 that share a set.
	var same []int64
	for g := uint64(0); len(same) < 5; g++ {
		if pteSet(3, g) == pteSet(3, 0) {
			same = append(same, int64(g)*PTEsPerEntry*SmallPageBytes)
		}
	}
	group := func(i int64) int64 { return same[i] }
	for i := range int64(4) {
		r, _ := c.Translate(3, group(i), SmallPageBytes)
		assert.Equal(t, 2, r)
	}
	r, _ := c.Translate(3, group(0), SmallPageBytes) // refresh 0
	assert.Zero(t, r)
	r, _ = c.Translate(3, group(4), SmallPageBytes) // evicts 1
	assert.Equal(t, 2, r)
	r, _ = c.Translate(3, group(0), SmallPageBytes)
	assert.Zero(t, r, "0 was used recently")
	r, _ = c.Translate(3, group(1), SmallPageBytes)
	assert.Equal(t, 2, r, "1 was the least recently used")
	// Another memory domain does not hit the same pages.
	r, _ = c.Translate(4, group(0), SmallPageBytes)
	assert.Equal(t, 2, r)
}

func TestIOMMUBadInput(t *testing.T) {
	var c PTECache
	for _, tc := range []struct{ off, page int64 }{{-1, SmallPageBytes}, {0, 0}, {0, 3000}} {
		_, err := c.Translate(1, tc.off, tc.page)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "Translate")
	}
}
