package fabric

import "github.com/gopgas/gopgas/conduit"

// Host is a node's processor side of its NIC's host interface: the link
// between the two and the node's memory, where the ordering modes act on
// the NIC's writes and reads. A backend makes one per node
// (Config.NewHost). Times are when things happen, booked in the order the
// NIC asks; loc is a location in the node's memory (Config.Location: a NUMA
// die, or 0 where memory has no parts).
type Host interface {
	// ToNIC books bytes (data and the host interface's overhead) on the
	// host-to-NIC direction at t and returns when they have reached the
	// NIC.
	ToNIC(t Time, bytes int) Time
	// Write books a posted write of n data bytes in cnt host-interface
	// transactions (one per packet; a coarse unit is a burst of them) to
	// memory at loc, handed to the host interface at t in ordering mode
	// order. It returns when the interface took it (the NIC is free of it
	// then: a posted write needs no response) and when it is visible in
	// memory.
	Write(t Time, n, cnt, loc int, order conduit.OrderingMode) (taken, visible Time)
	// Read books a read of memory at loc in cnt host-interface reads (one
	// per packet), arriving from the NIC at t in ordering mode order. The
	// memory is read at snapshot; the data is on its way back to the NIC
	// at done.
	Read(t Time, cnt, loc int, order conduit.OrderingMode) (snapshot, done Time)
}

// HostToNIC books bytes (data and overhead) on node's host-to-NIC
// direction at t and returns when they have reached the NIC: a store of
// the node's CPU into a NIC unit (Host.ToNIC).
func (m *Machine) HostToNIC(node int, t Time, bytes int) Time {
	return m.nics[node].host.ToNIC(t, bytes)
}

// HostWrite books a posted write by node's NIC of n data bytes in cnt
// host-interface transactions to memory at loc, at t, and returns when it
// is visible (Host.Write).
func (m *Machine) HostWrite(node int, t Time, n, cnt, loc int, order conduit.OrderingMode) (visible Time) {
	_, visible = m.nics[node].host.Write(t, n, cnt, loc, order)
	return visible
}
