package aries

import (
	"fmt"

	"github.com/gopgas/gopgas/internal/simnet"
)

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
// the address of a request for rank's memory region. The request carries
// the job's vMDH and the process's slot on the node, which the NIC's CAM
// turns into the MDH, and the offset in the process's memory domain; a
// region the domain does not hold is left to the NIC to reject.
func (w *network) translate(node, rank int, now Time, region uint32, off int64, _ int) Time {
	base, ok := w.domain(rank).offset(region)
	if !ok {
		return now
	}
	mdh, ok := w.cams[node].lookup(JobVMDH, uint16(rank%w.m.Job().PEsPerNode()))
	if !ok {
		return now
	}
	a := NetworkAddress{Node: uint32(w.phys[node]), MDH: mdh, Offset: uint64(base + off)}
	if a.Check() != nil {
		return now
	}
	u := w.iommus[node]
	line, reads, err := u.cache.lookup(uint32(a.MDH), int64(a.Offset), w.opts.pageBytes)
	if err != nil {
		return now
	}
	if reads == 0 {
		// A hit, on an entry whose fetch may still be under way.
		return max(now, line.ready)
	}
	slot := u.n % PTEFetchesOutstanding
	u.n++
	start := max(now, u.fetches[slot])
	u.fetches[slot] = start + Time(reads)*pteFetch
	line.ready = u.fetches[slot]
	return line.ready
}

// domain is rank's memory domain, made on first use.
func (w *network) domain(rank int) *domain {
	if w.domains == nil {
		w.domains = make([]*domain, w.m.Job().Size())
	}
	d := w.domains[rank]
	if d == nil {
		d = newDomain(w.m.Job().Cfg.SegmentBytes)
		w.domains[rank] = d
	}
	return d
}

// registered is the fabric's Registered hook: a region takes offsets in
// its process's memory domain, and gives them back when deregistered,
// when the IOMMU drops its cached translations of them.
func (w *network) registered(ep *simnet.Endpoint, node int, id uint32, bytes int64, deregister bool) error {
	d := w.domain(ep.Rank())
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
	mdh, ok := w.cams[node].lookup(JobVMDH, uint16(ep.Rank()%w.m.Job().PEsPerNode()))
	if ok {
		w.iommus[node].cache.Invalidate(uint32(mdh), r.off, r.n, w.opts.pageBytes)
	}
	return nil
}
