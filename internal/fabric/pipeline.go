package fabric

// pipeline is one of a NIC's two packet pipelines, transmit and receive:
// per-virtual-channel queues served one packet at a time, the virtual
// channels in turn. The NIC serves it on an event of its own (nicTxServe,
// nicRxServe), scheduled at most once at a time.
type pipeline struct {
	free    Time // busy with a packet until then
	q       [MaxVCs]pktQueue
	queued  int32 // packets in q
	rr      uint8
	pending bool // its serve event is scheduled
}

// next takes the next packet of the virtual channels in turn that is not
// blocked at now: block[vc], if block is not nil, is when the pipeline
// may take vc's packets again (only the receive pipeline's are held up,
// nic.rxBlock). With none, wake is when the first blocked one is free,
// or -1.
func (pl *pipeline) next(now Time, vcs int, block *[MaxVCs]Time) (p *Packet, wake Time) {
	wake = -1
	for i, vc := 0, int(pl.rr); i < vcs; i, vc = i+1, vc+1 {
		if vc == vcs {
			vc = 0
		}
		if pl.q[vc].front() == nil {
			continue
		}
		if block != nil {
			if b := block[vc]; b > now {
				if wake < 0 || b < wake {
					wake = b
				}
				continue
			}
		}
		p = pl.q[vc].pop()
		pl.queued--
		if pl.rr = uint8(vc + 1); int(pl.rr) == vcs {
			pl.rr = 0
		}
		return p, wake
	}
	return nil, wake
}

// enter queues p for pl at now. It says whether pl is idle, when the
// caller serves it at once; otherwise pl is served by its event code.
func (n *nic) enter(pl *pipeline, p *Packet, code int32, now Time) bool {
	pl.q[p.VC].push(p)
	pl.queued++
	if !pl.pending && now >= pl.free {
		return true
	}
	n.kick(pl, code, now)
	return false
}

// kick makes sure pl's serve event looks at its queues at t or when it is
// next free.
func (n *nic) kick(pl *pipeline, code int32, t Time) {
	if pl.pending {
		return
	}
	pl.pending = true
	n.m.k.At(max(t, pl.free), n, code, nil)
}

// serve starts serving pl on its event code and takes its next packet.
// It returns nil when pl is still busy, or has nothing it may take now;
// its event then comes again when pl is free, or when a blocked virtual
// channel is.
func (n *nic) serve(pl *pipeline, block *[MaxVCs]Time, code int32) (p *Packet, now Time) {
	pl.pending = false
	now = n.m.k.Now()
	if now < pl.free {
		n.kick(pl, code, pl.free)
		return nil, now
	}
	p, wake := pl.next(now, n.m.p.VCs, block)
	if p == nil && wake >= 0 {
		n.kick(pl, code, wake)
	}
	return p, now
}

// served is the end of serving a packet that occupies pl until pl.free:
// packets still queued are served then.
func (n *nic) served(pl *pipeline, code int32) {
	if pl.queued > 0 {
		n.kick(pl, code, pl.free)
	}
}
