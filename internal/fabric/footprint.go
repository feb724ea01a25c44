package fabric

import "unsafe"

// Footprint is what a machine has built, and the bytes of it, by the
// fabric's own accounting (the sizes of its structures, not the Go
// heap's): the routers and channels, which a backend's Build makes for
// its whole system, and the state made only for what a job uses: VC
// state for the channels that have queued a packet, bus state for the
// routers a packet has crossed, credit-return lists for the VCs with
// credits on their way back, and the NICs of the job's nodes (with the
// block-transfer engines and AMO units they have made, the AMO units'
// maps aside).
type Footprint struct {
	Routers, Channels int
	// ChannelsUsed have VC state; RoutersUsed have bus state; Returns
	// are the VCs' credit-return lists in use and ReturnsFree those the
	// machine keeps for reuse.
	ChannelsUsed, RoutersUsed, Returns, ReturnsFree int
	NICs                                            int
	// Bytes is the size of all of it, the routers' and channels' lists
	// included (a backend's own tables and the hosts are not counted).
	Bytes int64
}

// Footprint is the machine's footprint now.
func (m *Machine) Footprint() Footprint {
	f := Footprint{Routers: len(m.routers), Channels: len(m.channels), NICs: len(m.nics)}
	b := int64(len(m.routers))*int64(unsafe.Sizeof(Router{})) + int64(len(m.channels))*int64(unsafe.Sizeof(Channel{})+unsafe.Sizeof(&Channel{}))
	for _, r := range m.routers {
		b += int64(cap(r.links)+cap(r.inject)+cap(r.eject)) * int64(unsafe.Sizeof(&Channel{}))
		if r.buses != nil {
			f.RoutersUsed++
			b += int64(cap(r.buses)) * int64(unsafe.Sizeof(r.buses[0]))
		}
	}
	for _, c := range m.channels {
		if c.vcs == nil {
			continue
		}
		f.ChannelsUsed++
		b += int64(len(c.vcList())) * int64(unsafe.Sizeof(vcState{}))
		for _, v := range c.vcList() {
			if v.returns != 0 {
				f.Returns++
				b += int64(unsafe.Sizeof(returnList{})) + int64(m.returnList(v.returns).cap())*int64(unsafe.Sizeof(creditReturn{}))
			}
		}
	}
	for id := m.freeReturnLists; id != 0; id = m.returnList(id).next {
		l := m.returnList(id)
		f.ReturnsFree++
		b += int64(unsafe.Sizeof(returnList{})) + int64(l.cap())*int64(unsafe.Sizeof(creditReturn{}))
	}
	for _, n := range m.nics {
		if n == nil {
			continue
		}
		b += int64(unsafe.Sizeof(*n))
		if n.be != nil {
			b += int64(unsafe.Sizeof(*n.be)) + int64(cap(n.be.ch))*int64(unsafe.Sizeof(bteChan{}))
		}
		if n.au != nil {
			// Its maps' entries are not counted.
			b += int64(unsafe.Sizeof(*n.au)) + int64(cap(n.au.fills))*int64(unsafe.Sizeof(Time(0)))
		}
	}
	f.Bytes = b
	return f
}
