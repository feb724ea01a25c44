package aries

// iommu is a NIC's address translation as the fabric runs it
// (fabric.Config.Translate): the PTE cache, and a pipeline of
// PTEFetchesOutstanding page-table fetches. A miss costs its levels of
// host reads, one after another, each a PCI-Express read of host memory;
// other translations go on meanwhile, up to the pipeline's depth.
type iommu struct {
	cache   PTECache
	fetches [PTEFetchesOutstanding]Time // by slot: when each fetch in flight is done
	n       int
}

// pteFetch is one page-table read from the NIC: a PCI-Express round trip
// and a memory read.
const pteFetch = 2*PCIeLatency + MemoryReadLatency

// translate is the fabric's Translate hook: the target NIC translates
// the address of a request for rank's memory region.
func (w *network) translate(node, rank int, now Time, region uint32, off int64, _ int) Time {
	u := w.iommus[node]
	// The network address names the memory domain by a 12-bit MDH of the
	// target process (A-IOMMU: "18-bit node, 12-bit MDH").
	mdh := uint32(rank)<<MDHBits | region&(1<<MDHBits-1)
	reads, err := u.cache.Translate(mdh, off, w.opts.pageBytes)
	if err != nil || reads == 0 {
		return now
	}
	slot := u.n % PTEFetchesOutstanding
	u.n++
	start := max(now, u.fetches[slot])
	u.fetches[slot] = start + Time(reads)*pteFetch
	return u.fetches[slot]
}
