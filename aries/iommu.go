package aries

import (
	"fmt"

	"github.com/gopgas/gopgas/internal/fabric"
	"github.com/gopgas/gopgas/internal/simnet"
)

// Address translation (whitepaper, Address Translation; calibration row
// A-IOMMU). The NIC's IOMMU translates the virtual address an incoming
// request (or a local read, a fetching response, a completion write)
// names into a physical one. Its page-table-entry cache is 4-way set
// associative with 128 entries, each holding the PTEs of eight consecutive
// pages; a miss fetches the entry from the host's page tables, two levels
// for 4 KB pages and one for huge pages, while a deep pipeline keeps other
// translations going.
const (
	// NodeBits, MDHBits and OffsetBits make the 70-bit network address:
	// an 18-bit node identifier, a 12-bit memory domain handle naming a
	// segment registered at that node, and a 40-bit offset into it
	// (Address Translation).
	NodeBits, MDHBits, OffsetBits = 18, 12, 40
	// PTECacheEntries is the PTE cache's size: 128 entries.
	PTECacheEntries = 128
	// PTECacheWays is its associativity: four-way set associative.
	PTECacheWays = 4
	// PTEsPerEntry is how many PTEs (consecutive pages) an entry holds.
	PTEsPerEntry = 8
	// PTECacheSets is the number of sets: 128 / 4 = 32.
	PTECacheSets = PTECacheEntries / PTECacheWays
	// pteSetBits is log2(PTECacheSets).
	pteSetBits = 5
	// SmallPageBytes is a Linux page, translated in two levels.
	SmallPageBytes = 4 << 10
	// HugePageBytes is the huge page the model uses by default for
	// registered memory ("Large pages are used by default for the Cray
	// SHMEM symmetric heap"): 2 MB, translated in one level.
	HugePageBytes = 2 << 20
	// SmallPageLevels and HugePageLevels are the host reads a PTE cache
	// miss costs: "Linux 4 KB pages using two-level translation and huge
	// page sizes ... using a single level of translation".
	SmallPageLevels = 2
	HugePageLevels  = 1
)

// PageLevels is the number of translation levels of a page size.
func PageLevels(pageBytes int64) int {
	if pageBytes <= SmallPageBytes {
		return SmallPageLevels
	}
	return HugePageLevels
}

// pteLine is one entry of the PTE cache: the PTEs of eight consecutive
// pages of one memory domain.
type pteLine struct {
	valid bool
	mdh   uint32
	group uint64 // page number / PTEsPerEntry
	used  uint64 // for LRU
	ready Time   // when its PTEs arrive from the host (the model's)
}

// PTECache is the IOMMU's page-table-entry cache. The zero value is an
// empty cache. A set's lines are made when it is first filled: a node's
// cache costs the sets its translations reach (a few for a job whose
// requests name a few pages of each domain), not all of them.
type PTECache struct {
	sets   [PTECacheSets]*pteSetLines
	clock  uint64
	hits   int64
	misses int64
}

// pteSetLines is one set of the cache, its ways.
type pteSetLines [PTECacheWays]pteLine

// Translate looks up the translation of byte off of memory domain mdh,
// registered with pages of pageBytes, and returns how many host reads of
// page tables it costs: 0 on a hit, the page size's levels on a miss (the
// entry is then filled, evicting the least recently used of its set).
func (c *PTECache) Translate(mdh uint32, off, pageBytes int64) (reads int, err error) {
	_, reads, err = c.lookup(mdh, off, pageBytes)
	return reads, err
}

// lookup is Translate that also returns the entry, filled or found.
func (c *PTECache) lookup(mdh uint32, off, pageBytes int64) (line *pteLine, reads int, err error) {
	if off < 0 || pageBytes <= 0 || pageBytes&(pageBytes-1) != 0 {
		return nil, 0, fmt.Errorf("aries: Translate(mdh %d, offset %d, page %d bytes): bad offset or page size", mdh, off, pageBytes)
	}
	group := uint64(off/pageBytes) / PTEsPerEntry
	set := c.sets[pteSet(mdh, group)]
	if set == nil {
		// Every line of a set not yet made is invalid.
		set = new(pteSetLines)
		c.sets[pteSet(mdh, group)] = set
	}
	c.clock++
	victim := 0
	for i := range set {
		l := &set[i]
		if l.valid && l.mdh == mdh && l.group == group {
			l.used = c.clock
			c.hits++
			return l, 0, nil
		}
		if !l.valid || (set[victim].valid && l.used < set[victim].used) {
			victim = i
		}
	}
	set[victim] = pteLine{valid: true, mdh: mdh, group: group, used: c.clock}
	c.misses++
	return &set[victim], PageLevels(pageBytes), nil
}

// Invalidate drops the cached translations of bytes n at off of memory
// domain mdh (a region deregistered), registered with pages of pageBytes.
func (c *PTECache) Invalidate(mdh uint32, off, n, pageBytes int64) {
	if n <= 0 || pageBytes <= 0 {
		return
	}
	first := uint64(off/pageBytes) / PTEsPerEntry
	last := uint64((off+n-1)/pageBytes) / PTEsPerEntry
	if last-first >= PTECacheSets*PTECacheWays {
		// More groups than the cache holds: look at every line instead.
		for _, set := range c.sets {
			if set == nil {
				continue
			}
			for i := range set {
				if l := &set[i]; l.valid && l.mdh == mdh && l.group >= first && l.group <= last {
					*l = pteLine{}
				}
			}
		}
		return
	}
	for g := first; g <= last; g++ {
		set := c.sets[pteSet(mdh, g)]
		if set == nil {
			continue
		}
		for i := range set {
			if l := &set[i]; l.valid && l.mdh == mdh && l.group == g {
				*l = pteLine{}
			}
		}
	}
}

// pteSet is the set of a memory domain's group of pages: a hash of both,
// so that the same offsets of different domains (every process's segment)
// spread over the sets.
func pteSet(mdh uint32, group uint64) uint64 {
	return (uint64(mdh)<<40 ^ group) * 0x9e3779b97f4a7c15 >> (64 - pteSetBits)
}

// Stats returns the hits and misses so far.
func (c *PTECache) Stats() (hits, misses int64) { return c.hits, c.misses }

// iommu is a NIC's address translation as the fabric runs it
// (fabric.Config.Translate): the PTE cache, and a pipeline of
// PTEFetchesOutstanding page-table fetches. A miss costs its levels of
// host reads, one after another, each a PCI-Express read of host memory;
// other translations go on meanwhile, up to the pipeline's depth.
type iommu struct {
	cache   PTECache
	fetches fabric.Times // by slot (PTEFetchesOutstanding): when each fetch in flight is done
	n       int
}

// pteFetch is one page-table read from the NIC: a PCI-Express round trip
// and a memory read.
const pteFetch = 2*PCIeLatency + MemoryReadLatency

// translate is the fabric's Translate hook: the target NIC translates
// the address of a request for rank's memory region. The request carries
// the job's vMDH and the process's slot on the node, which the NIC's CAM
// turns into the MDH, and the offset in the process's memory domain
// (address.go); a region the domain does not hold is left to the NIC to
// reject.
func (w *network) translate(node, rank int, now Time, region uint32, off int64, _ int) Time {
	a, ok := w.addr.address(w.m.Job(), node, rank, region, off)
	if !ok {
		return now
	}
	return w.iommus[node].translate(now, a, w.opts.pageBytes)
}

// translate is when the IOMMU has the translation of network address a,
// registered with pages of pageBytes, asked for at now: on a hit, once the
// entry's PTEs have arrived; on a miss, once the page-table reads the
// miss costs are done, in the pipeline's next slot.
func (u *iommu) translate(now Time, a NetworkAddress, pageBytes int64) Time {
	line, reads, err := u.cache.lookup(uint32(a.MDH), int64(a.Offset), pageBytes)
	if err != nil {
		return now
	}
	if reads == 0 {
		// A hit, on an entry whose fetch may still be under way.
		return max(now, line.ready)
	}
	slot := u.n % PTEFetchesOutstanding
	u.n++
	start := max(now, u.fetches.At(slot))
	line.ready = start + Time(reads)*pteFetch
	u.fetches.Set(slot, PTEFetchesOutstanding, line.ready)
	return line.ready
}

// registered is the fabric's Registered hook: a region takes offsets in
// its process's memory domain, and gives them back when deregistered,
// when the IOMMU drops its cached translations of them.
func (w *network) registered(ep *simnet.Endpoint, node int, id uint32, bytes int64, deregister bool) error {
	d := w.addr.domain(w.m.Job(), ep.Rank())
	if !deregister {
		if _, err := d.place(id, bytes); err != nil {
			return fmt.Errorf("%s: PE %d: Register of %d bytes: %w", Name, ep.Rank(), bytes, err)
		}
		return nil
	}
	r, ok := d.release(id)
	if !ok {
		return nil
	}
	mdh, ok := w.addr.mdh(w.m.Job(), node, ep.Rank())
	if ok {
		w.iommus[node].cache.Invalidate(uint32(mdh), r.off, r.n, w.opts.pageBytes)
	}
	return nil
}
