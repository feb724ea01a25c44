package fabric

import (
	"fmt"

	"github.com/gopgas/gopgas/internal/memreg"
	"github.com/gopgas/gopgas/internal/simnet"
)

// Memory registration ([ORDERING] III.B). A registration pins its pages
// and writes one translation entry per page into the node's table; the
// driver serialises registrations (and deregistrations) per node, and the
// node's table of entries is fixed and shared by all its processes
// (Params.RegisterPages). The segments take their entries at job start,
// in that table or, on a NIC with a table of its own for the segments'
// larger pages, in that one (Params.SegmentEntries).

// regPages is the number of pages of size page bytes spans.
func regPages(bytes, page int64) int64 { return (bytes + page - 1) / page }

// registerSegments takes the translation entries of every PE's segment,
// registered at job start, and refuses a job whose segments alone do not
// fit a node's table: the segments' own table (Params.SegmentEntries)
// when the NIC has one, else the table of registrations.
func (m *Machine) registerSegments(j *simnet.Job) error {
	m.regUsed = make([]int64, j.Nodes())
	pes := make([]int, j.Nodes())
	for rank := range j.Size() {
		pes[j.NodeOf(rank)]++
	}
	for node, n := range pes {
		used, err := m.segmentPages(node, n, j.Cfg.SegmentBytes)
		if err != nil {
			return err
		}
		if m.p.SegmentEntries > 0 {
			continue // in a table of their own
		}
		m.regUsed[node] = used
		m.stats.RegPeak = max(m.stats.RegPeak, used)
	}
	return nil
}

// segmentPages is the translation entries the segments of segBytes of a
// node's pes PEs take, or an error when they do not fit their table.
func (m *Machine) segmentPages(node, pes int, segBytes int64) (int64, error) {
	page := m.p.SegmentPageBytes
	if page == 0 {
		page = m.p.PageBytes
	}
	used := int64(pes) * regPages(segBytes, page)
	lim, table := m.p.RegisterPages, "the node's translation table"
	if m.p.SegmentEntries > 0 {
		lim, table = m.p.SegmentEntries, "the table of segment pages"
	}
	if lim > 0 && used > lim {
		return 0, fmt.Errorf("%s: node %d: registering the %d-byte segments of its %d PEs needs %d pages of %d bytes, more than the %d of %s (%d bytes): %w",
			m.name, node, segBytes, pes, used, page, lim, table, lim*page, memreg.ErrTableFull)
	}
	return used, nil
}

// Register holds the node's registration lock (the driver serialises
// registrations) for RegisterCall and RegisterPerPage per page, and a
// waiting registration pays RegisterHandoff when the lock passes to it. A
// registration that needs more pages than the node's translation table has
// free fails, having held the lock for RegisterCall, with an error that
// wraps memreg.ErrTableFull; a deregistration returns its pages.
func (m *Machine) Register(ep *simnet.Endpoint, id uint32, bytes int64, deregister bool) error {
	m = m.at(ep)
	p := ep.Proc()
	if err := p.Sync(); err != nil {
		return err
	}
	node := m.job.NodeOf(ep.Rank())
	n := regPages(bytes, m.p.PageBytes)
	now := p.Clock()
	start := now
	if m.regFree[node] > now {
		start = m.regFree[node] + m.p.RegisterHandoff
	}
	if lim := m.p.RegisterPages; !deregister && lim > 0 && m.regUsed[node]+n > lim {
		m.stats.RegFailures++
		m.regFree[node] = start + m.p.RegisterCall
		m.stats.RegBusy += m.p.RegisterCall
		p.Advance(m.regFree[node] - now)
		if err := p.Sync(); err != nil {
			return err
		}
		free := lim - m.regUsed[node]
		return fmt.Errorf("%s: PE %d: Register of %d bytes (%d pages of %d bytes): node %d's translation table has %d of its %d pages free (%d bytes): %w",
			m.name, ep.Rank(), bytes, n, m.p.PageBytes, node, free, lim, free*m.p.PageBytes, memreg.ErrTableFull)
	}
	if f := m.cfg.Registered; f != nil {
		if err := f(ep, node, id, bytes, deregister); err != nil {
			return err
		}
	}
	if deregister {
		m.regUsed[node] -= n
	} else {
		m.regUsed[node] += n
		m.stats.RegPeak = max(m.stats.RegPeak, m.regUsed[node])
	}
	done := start + m.p.RegisterCall + Time(n)*m.p.RegisterPerPage
	m.regFree[node] = done
	m.stats.RegBusy += done - start
	p.Advance(done - now)
	return p.Sync()
}
