package aries

import (
	"fmt"
	"slices"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/simnet"
)

// Network addresses, memory domains and virtual nodes (whitepaper,
// Address Translation).
//
// A request names its target memory by the 70-bit network address: the
// target's 18-bit node identifier, the 12-bit memory domain handle (MDH) of
// a process's registered memory there and a 40-bit offset into it. The
// model gives each process one memory domain, which holds its segment at
// offset 0 and every region it registers after it, each at an offset of
// its own (freed offsets are reused), so that the offset names the page
// the IOMMU translates.
//
// The job names memory domains by a virtual MDH (vMDH): the same handle on
// every node for the same process slot, which each NIC's CAM turns into
// the node's MDH ("If a match is found, the corresponding MDH base value is
// added to the value in the packet to generate the MDH"): the CAM entry of
// the job gives the base, the packet's value is the process's slot on its
// node. A packet whose handle the CAM does not hold finds no memory there.
//
// Nodes are virtual too: the job's nodes 0..n-1 are the system's nodes in
// order, less those the exclude option names (failed nodes, or nodes of
// other jobs): "The node identifier translation mechanism supports mapping
// around failed nodes and those allocated to other communication domains.
// Each job has the impression of running on a contiguous range of nodes".
// Every NIC holds the same translation of the job's nodes; the model keeps
// one copy of it.
const (
	// MDHsPerNIC is the 12-bit MDH's range: memory domains a NIC can
	// address.
	MDHsPerNIC = 1 << MDHBits
	// MaxOffset is the 40-bit offset's range: the bytes of a memory
	// domain.
	MaxOffset = int64(1) << OffsetBits
	// MaxNodeID is the 18-bit node identifier's range.
	MaxNodeID = 1 << NodeBits
	// CAMEntries is the size of a NIC's vMDH CAM. Assumed: a handful of
	// jobs or communication domains share a node.
	CAMEntries = 16
	// JobVMDH is the virtual MDH a job's processes use for their memory
	// domains.
	JobVMDH = 1
	// domainAlign aligns regions in a memory domain: a huge page, so that
	// no two regions share a page or a PTE cache entry.
	domainAlign = HugePageBytes
)

// NetworkAddress is a 70-bit Aries network address.
type NetworkAddress struct {
	Node   uint32 // 18 bits
	MDH    uint16 // 12 bits
	Offset uint64 // 40 bits
}

// Check reports a field out of its range.
func (a NetworkAddress) Check() error {
	switch {
	case a.Node >= MaxNodeID:
		return fmt.Errorf("aries: network address: node %d does not fit %d bits", a.Node, NodeBits)
	case a.MDH >= MDHsPerNIC:
		return fmt.Errorf("aries: network address: MDH %d does not fit %d bits", a.MDH, MDHBits)
	case a.Offset >= uint64(MaxOffset):
		return fmt.Errorf("aries: network address: offset %d does not fit %d bits", a.Offset, OffsetBits)
	}
	return nil
}

// Pack returns the address's 70 bits: the offset in bits 0..39, the MDH in
// 40..51 and the node in 52..69 (lo holds bits 0..63, hi bits 64..69).
func (a NetworkAddress) Pack() (lo uint64, hi uint8, err error) {
	if err := a.Check(); err != nil {
		return 0, 0, err
	}
	lo = a.Offset | uint64(a.MDH)<<OffsetBits | uint64(a.Node)<<(OffsetBits+MDHBits)
	hi = uint8(a.Node >> (64 - OffsetBits - MDHBits))
	return lo, hi, nil
}

// UnpackNetworkAddress is the address of 70 packed bits (Pack); bits above
// the 70th are an error.
func UnpackNetworkAddress(lo uint64, hi uint8) (NetworkAddress, error) {
	const hiBits = OffsetBits + MDHBits + NodeBits - 64
	if hi>>hiBits != 0 {
		return NetworkAddress{}, fmt.Errorf("aries: network address %#x%016x: more than %d bits", hi, lo, OffsetBits+MDHBits+NodeBits)
	}
	low := lo >> (OffsetBits + MDHBits)
	return NetworkAddress{
		Offset: lo & (uint64(MaxOffset) - 1),
		MDH:    uint16(lo >> OffsetBits & (MDHsPerNIC - 1)),
		Node:   uint32(low) | uint32(hi)<<(64-OffsetBits-MDHBits),
	}, nil
}

// camEntry maps a vMDH to the MDH of the node's first process slot.
type camEntry struct {
	vmdh, base uint16
}

// vmdhCAM is a NIC's content-addressable memory of virtual MDHs.
type vmdhCAM struct {
	entries []camEntry
}

// add maps vmdh to base; a full CAM or a handle already there is an error.
func (c *vmdhCAM) add(vmdh, base uint16) error {
	for _, e := range c.entries {
		if e.vmdh == vmdh {
			return fmt.Errorf("aries: vMDH CAM: handle %d is already mapped (to MDH %d)", vmdh, e.base)
		}
	}
	if len(c.entries) >= CAMEntries {
		return fmt.Errorf("aries: vMDH CAM: all %d entries in use; handle %d does not fit", CAMEntries, vmdh)
	}
	c.entries = append(c.entries, camEntry{vmdh, base})
	return nil
}

// lookup is the MDH of the packet's handle and value; false on a miss or
// an MDH out of range.
func (c *vmdhCAM) lookup(vmdh, value uint16) (uint16, bool) {
	for _, e := range c.entries {
		if e.vmdh == vmdh {
			mdh := int(e.base) + int(value)
			return uint16(mdh), mdh < MDHsPerNIC
		}
	}
	return 0, false
}

// span is a range of a memory domain's offsets.
type span struct{ off, n int64 }

// domain is a process's memory domain: where each of its regions lies.
type domain struct {
	regions map[uint32]span
	free    []span // by offset, coalesced
}

// newDomain is the domain of a process whose segment is segBytes long.
func newDomain(segBytes int64) *domain {
	seg := alignUp(segBytes, domainAlign)
	d := &domain{regions: map[uint32]span{}}
	if seg < MaxOffset {
		d.free = []span{{seg, MaxOffset - seg}}
	}
	return d
}

func alignUp(n, a int64) int64 { return (n + a - 1) / a * a }

// place gives region id of n bytes the lowest free offsets that hold it.
func (d *domain) place(id uint32, n int64) (int64, error) {
	size := alignUp(max(n, 1), domainAlign)
	for i, s := range d.free {
		if s.n < size {
			continue
		}
		d.regions[id] = span{s.off, size}
		if s.n == size {
			d.free = slices.Delete(d.free, i, i+1)
		} else {
			d.free[i] = span{s.off + size, s.n - size}
		}
		return s.off, nil
	}
	return 0, fmt.Errorf("no %d free bytes of the memory domain's %d-bit offsets", size, OffsetBits)
}

// release frees region id's offsets; false if it has none.
func (d *domain) release(id uint32) (span, bool) {
	r, ok := d.regions[id]
	if !ok {
		return span{}, false
	}
	delete(d.regions, id)
	i, _ := slices.BinarySearchFunc(d.free, r.off, func(s span, off int64) int {
		switch {
		case s.off < off:
			return -1
		case s.off > off:
			return 1
		}
		return 0
	})
	d.free = slices.Insert(d.free, i, r)
	// Coalesce with the neighbours.
	if i+1 < len(d.free) && d.free[i].off+d.free[i].n == d.free[i+1].off {
		d.free[i].n += d.free[i+1].n
		d.free = slices.Delete(d.free, i+1, i+2)
	}
	if i > 0 && d.free[i-1].off+d.free[i-1].n == d.free[i].off {
		d.free[i-1].n += d.free[i].n
		d.free = slices.Delete(d.free, i, i+1)
	}
	return r, true
}

// offset is where region id lies in the domain (the segment at 0); false
// if the region is not registered.
func (d *domain) offset(id uint32) (int64, bool) {
	if id == conduit.SegmentID {
		return 0, true
	}
	r, ok := d.regions[id]
	return r.off, ok
}

// addressing is the job's side of the network addresses: the system node
// of each of its (virtual) nodes, their NICs' vMDH CAMs, and its
// processes' memory domains by rank, made when first needed.
type addressing struct {
	phys    []int
	cams    []vmdhCAM
	domains []*domain
}

// addCAMs gives each of the job's nodes' NICs a CAM with the job's entry.
func (ad *addressing) addCAMs(nodes int) error {
	ad.cams = make([]vmdhCAM, nodes)
	for i := range ad.cams {
		// The job's only CAM entry: its process slots from MDH 0.
		if err := ad.cams[i].add(JobVMDH, 0); err != nil {
			return err
		}
	}
	return nil
}

// physical is the system node of one of the job's nodes (itself on a
// network no job runs on).
func (ad *addressing) physical(node int) int {
	if ad.phys == nil {
		return node
	}
	return ad.phys[node]
}

// domain is rank's memory domain in job j, made on first use.
func (ad *addressing) domain(j *simnet.Job, rank int) *domain {
	if ad.domains == nil {
		ad.domains = make([]*domain, j.Size())
	}
	d := ad.domains[rank]
	if d == nil {
		d = newDomain(j.Cfg.SegmentBytes)
		ad.domains[rank] = d
	}
	return d
}

// mdh is the MDH of rank's memory domain at node's NIC, as its CAM turns
// the job's vMDH and the process's slot on its node into one; false on a
// miss.
func (ad *addressing) mdh(j *simnet.Job, node, rank int) (uint16, bool) {
	return ad.cams[node].lookup(JobVMDH, uint16(rank%j.PEsPerNode()))
}

// address is the network address of byte off of region region of rank's
// memory at node: the node's system id, the MDH of the process's domain
// and the region's offset in it plus off. false if the domain does not
// hold the region, the CAM has no MDH for it or the address does not fit
// its bits.
func (ad *addressing) address(j *simnet.Job, node, rank int, region uint32, off int64) (NetworkAddress, bool) {
	base, ok := ad.domain(j, rank).offset(region)
	if !ok {
		return NetworkAddress{}, false
	}
	mdh, ok := ad.mdh(j, node, rank)
	if !ok {
		return NetworkAddress{}, false
	}
	a := NetworkAddress{Node: uint32(ad.phys[node]), MDH: mdh, Offset: uint64(base + off)}
	if a.Check() != nil {
		return NetworkAddress{}, false
	}
	return a, true
}

// physicalNodes maps a job's n virtual nodes onto the system's nodes in
// order, skipping the excluded ones (sorted).
func physicalNodes(n int, excluded []int) []int {
	phys := make([]int, 0, n)
	next := 0
	for p := 0; len(phys) < n; p++ {
		if next < len(excluded) && excluded[next] == p {
			next++
			continue
		}
		phys = append(phys, p)
	}
	return phys
}
