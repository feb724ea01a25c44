//go:build mpi

package mpi

/*
#include "gp.h"
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/gopgas/gopgas/conduit"
)

// Tags of the control communicator.
const (
	tagAbort       = 1 // another PE failed: its error's text
	tagStatus      = 2 // to rank 0: a PE's state, for deadlock detection
	tagDeadlock    = 3 // from rank 0: the job is deadlocked
	tagRemoteEvent = 4 // a put's destination-side event
	tagAMORequest  = 5 // amo=am: an atomic for the target to perform
	tagAMOReply    = 6 // its outcome
	tagRegQuery    = 7 // where is registration N of the target?
	tagRegReply    = 8
)

const tagMessage = 1 // the AM communicator's only tag

// SendMessage copies the message into a send buffer and starts an
// MPI_Isend of it on the job's AM communicator. A target has a mailbox of
// JobConfig.MailboxSlots: that many sends to it may be unfinished at once;
// past that SendMessage returns ErrMailboxFull.
func (e *endpoint) SendMessage(target int, header, payload []byte) error {
	j := e.job
	if target < 0 || target >= j.size {
		return fmt.Errorf("mpi: PE %d: SendMessage to PE %d outside the job [0,%d)", e.rank, target, j.size)
	}
	if len(header) > MaxHeaderBytes || len(payload) > MaxPayloadBytes {
		return fmt.Errorf("mpi: PE %d: SendMessage of %d+%d bytes exceeds %d+%d", e.rank, len(header), len(payload), MaxHeaderBytes, MaxPayloadBytes)
	}
	if e.inFlight[target] >= j.cfg.MailboxSlots || len(e.sendFree) == 0 {
		e.reap()
		if e.inFlight[target] >= j.cfg.MailboxSlots || len(e.sendFree) == 0 {
			return conduit.ErrMailboxFull
		}
	}
	slot := e.takeSlot()
	buf := e.sendBuf(slot)
	binary.LittleEndian.PutUint16(buf, uint16(len(header)))
	n := 2 + copy(buf[2:], header)
	n += copy(buf[n:], payload)
	if err := check("MPI_Isend (active message)", e.rank, C.gp_isend(j.c, commAM, C.int(target), tagMessage, C.int(slot), C.int(n))); err != nil {
		e.sendFree = append(e.sendFree, slot)
		return err
	}
	e.slotDest[slot] = target
	e.inFlight[target]++
	j.amSent[target]++
	return nil
}

// takeSlot takes a free send buffer; sendBuf is its memory (C memory,
// which MPI reads until the send completes).
func (e *endpoint) takeSlot() int {
	s := e.sendFree[len(e.sendFree)-1]
	e.sendFree = e.sendFree[:len(e.sendFree)-1]
	return s
}

func (e *endpoint) sendBuf(s int) []byte {
	return unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(e.job.c.sbuf), s*slotBytes)), slotBytes)
}

func ptrOrNil(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(unsafe.SliceData(b))
}

// reap frees the buffers of finished sends.
func (e *endpoint) reap() {
	j := e.job
	if j.c.nactive == 0 {
		return
	}
	if err := check("MPI_Testsome (sends)", e.rank, C.gp_reap(j.c)); err != nil {
		j.fail(err)
		return
	}
	done := unsafe.Slice(j.c.done_idx, int(j.c.nsend))
	for _, s := range done[:j.c.nreaped] {
		if t := e.slotDest[s]; t >= 0 {
			e.inFlight[t]--
		}
		e.slotDest[s] = -1
		e.sendFree = append(e.sendFree, int(s))
	}
}

// PollMessages hands out arrived messages in the order MPI matched them
// (the receives are posted in ring order and matched in posting order, so
// each sender's messages come in the order it sent them), from at most
// PeerBurst senders. The previous batch's buffers are posted again first.
//
// Inside a wait, a poll that comes right after the local completion queue
// handed out completions (the flush that completed a blocking put, say)
// skips the active messages and the control communicator, at most
// amPollEvery-1 times in a row; see amPollEvery.
func (e *endpoint) PollMessages(msgs []conduit.Message) int {
	j := e.job
	completed := e.completedNow
	e.completedNow = false
	if e.inWait && completed && e.amSkips < amPollEvery-1 {
		e.amSkips++
		return 0
	}
	e.amSkips = 0
	e.repost()
	e.reap()
	// One call syncs (in a wait), probes the control communicator and
	// tests the ring's head.
	slot := e.headSlot()
	if err := check("MPI_Iprobe or MPI_Test (polling)", e.rank, C.gp_poll_in(j.c, C.int(slot), C.int(boolInt(e.inWait)))); err != nil {
		j.fail(err)
		return 0
	}
	if e.inWait {
		e.syncs++
	}
	if slot >= 0 {
		e.received(slot)
	}
	if j.recvCtl() {
		j.pollCtl()
	}
	n := 0
	var peers [64]int
	npeers := 0
	for n < len(msgs) && len(e.held) < e.nrecv {
		s := e.head
		if !e.rdone[s] && !e.testRecv(s) {
			break
		}
		src := e.rsrc[s]
		known := false
		for _, p := range peers[:npeers] {
			if p == src {
				known = true
				break
			}
		}
		if !known {
			if npeers >= j.cfg.PeerBurst || npeers == len(peers) {
				break // served enough peers: this one is the next poll's first
			}
			peers[npeers] = src
			npeers++
		}
		msgs[n] = e.message(s)
		n++
		e.held = append(e.held, s)
		e.head = (e.head + 1) % e.nrecv
	}
	e.progress += int64(n)
	return n
}

// amPollEvery bounds how long active messages and control messages wait
// while the PE completes blocking operations: inside a wait, a poll right
// after local completions were handed out skips them, but never more than
// amPollEvery-1 polls in a row. A blocking put or get is complete at the
// flush, which MPI progresses by itself, so it needs no poll of the
// receives to complete, and a loop of blocking puts paid for two MPI calls
// (MPI_Iprobe, MPI_Test) per put that found nothing; a wait whose
// condition is not met by the completions polls everything in its next
// round (that round hands out no completions), so no wait depends on the
// skipped poll, and a PE that only puts still serves the atomics,
// messages and control messages addressed to it every amPollEvery
// blocking operations. Assumed: 16 keeps the skipped polls' share of a
// put's time small while the delay it adds to a request is a few
// microseconds of puts.
const amPollEvery = 16

// headSlot is the ring's next receive when it is posted and not yet known
// to be complete, else -1.
func (e *endpoint) headSlot() int {
	if len(e.held) < e.nrecv && !e.rdone[e.head] {
		return e.head
	}
	return -1
}

// repost posts again the receives of the last batch handed out.
func (e *endpoint) repost() {
	j := e.job
	for _, s := range e.held {
		e.rdone[s] = false
		if err := check("MPI_Irecv (active messages)", e.rank, C.gp_post_recv(j.c, C.int(s))); err != nil {
			j.fail(err)
		}
	}
	e.held = e.held[:0]
}

// testRecv tests receive slot s and records its message when it has
// arrived.
func (e *endpoint) testRecv(s int) bool {
	j := e.job
	if err := check("MPI_Test (active-message receive)", e.rank, C.gp_test_recv(j.c, C.int(s))); err != nil {
		j.fail(err)
		return false
	}
	return e.received(s)
}

// received records the message of receive slot s when the last test of
// it (gp_test_recv, gp_poll_in, gp_spin) found it complete.
func (e *endpoint) received(s int) bool {
	j := e.job
	if j.c.am_done == 0 {
		return false
	}
	j.c.am_done = 0
	e.rdone[s], e.rsrc[s], e.rlen[s] = true, int(C.gp_recv_src(j.c, C.int(s))), int(C.gp_recv_len(j.c, C.int(s)))
	j.amRecv++
	return true
}

// message is the message in receive slot s.
func (e *endpoint) message(s int) conduit.Message {
	buf := unsafe.Slice((*byte)(unsafe.Pointer(C.gp_recv_buf(e.job.c, C.int(s)))), e.rlen[s])
	h := int(binary.LittleEndian.Uint16(buf))
	return conduit.Message{Source: e.rsrc[s], Header: buf[2 : 2+h], Payload: buf[2+h:]}
}

// drainAM receives and drops active messages while the job ends (only an
// aborted job leaves any), so that none is left in flight.
func (e *endpoint) drainAM() {
	e.repost()
	for len(e.held) < e.nrecv {
		s := e.head
		if !e.rdone[s] && !e.testRecv(s) {
			break
		}
		e.held = append(e.held, s)
		e.head = (e.head + 1) % e.nrecv
	}
	e.repost()
}

// sendCtl sends a control message (up to a slot; larger ones, the
// deadlock report, are sent synchronously).
func (j *job) sendCtl(target, tag int, msg []byte) error {
	if len(msg) > slotBytes {
		if err := check("MPI_Send (control)", j.rank, C.gp_send_big(j.c, commCtl, C.int(target), C.int(tag), ptr(msg), C.int(len(msg)))); err != nil {
			return err
		}
		j.ctlSent[target]++
		return nil
	}
	e := j.ep
	for i := 1; len(e.sendFree) == 0; i++ {
		// Every send buffer is busy: wait for one.
		e.reap()
		j.pollCtl()
		j.pause(i)
	}
	slot := e.takeSlot()
	n := copy(e.sendBuf(slot), msg)
	if err := check("MPI_Isend (control)", j.rank, C.gp_isend(j.c, commCtl, C.int(target), C.int(tag), C.int(slot), C.int(n))); err != nil {
		e.sendFree = append(e.sendFree, slot)
		return err
	}
	e.slotDest[slot] = -1
	j.ctlSent[target]++
	return nil
}

// pollCtl receives the control messages that have arrived.
func (j *job) pollCtl() {
	if j.c == nil {
		return
	}
	for {
		if err := check("MPI_Iprobe (control)", j.rank, C.gp_probe(j.c, commCtl)); err != nil {
			j.fail(err)
			return
		}
		if !j.recvCtl() {
			return
		}
	}
}

// recvCtl receives and handles the control message the last probe found
// (gp_probe, gp_poll_in, gp_spin), if any, and reports whether there was
// one.
func (j *job) recvCtl() bool {
	c := j.c
	if c.ct_found == 0 {
		return false
	}
	c.ct_found = 0
	src, tag, length := c.ct_src, c.ct_tag, c.ct_len
	if cap(j.ctlBuf) < int(length) {
		j.ctlBuf = make([]byte, max(int(length), 256))
	}
	buf := j.ctlBuf[:length]
	var p unsafe.Pointer
	if length > 0 {
		p = unsafe.Pointer(&buf[0])
	}
	// Received into Go memory: MPI_Recv keeps no pointer after it
	// returns.
	if err := check("MPI_Recv (control)", j.rank, C.gp_recv(j.c, commCtl, src, tag, p, length)); err != nil {
		j.fail(err)
		return false
	}
	j.ctlRecv++
	j.ep.progress++
	j.handleCtl(int(src), int(tag), buf)
	return true
}

func (j *job) handleCtl(src, tag int, buf []byte) {
	e := j.ep
	switch tag {
	case tagAbort:
		// This process's Run returns the abort too: its PE did not fail.
		err := fmt.Errorf("%w: PE %d failed: %s", conduit.ErrJobAborted, src, buf)
		j.abortedBy(src, err, err)
	case tagStatus:
		j.dl.status(src, buf)
	case tagDeadlock:
		d := decodeDeadlock(buf)
		j.abortedBy(src, d, d)
	case tagRemoteEvent:
		e.remoteCQ = append(e.remoteCQ, conduit.Event{Source: src, Data: binary.LittleEndian.Uint64(buf)})
	case tagAMORequest:
		e.serveAMO(src, buf)
	case tagAMOReply:
		e.amoReply(buf)
	case tagRegQuery:
		e.serveRegQuery(src, buf)
	case tagRegReply:
		e.regReply(src, buf)
	}
}

func u64bytes(v uint64) []byte {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	return b[:]
}

// Active-message atomics (amo=am). The request carries the sequence
// number, registration, offset, operation, width, fetch flag, operand and
// compare value; the target performs it with the CPU's atomics
// (conduit.ApplyAMO) on its own memory and replies with the old value.
// Requests from one PE to one target are performed in the order they were
// sent (MPI does not let one sender's messages overtake each other).
const amoRequestBytes = 8 + 4 + 8 + 1 + 1 + 1 + 8 + 8

func (e *endpoint) postAMOMessage(d *conduit.PostDesc, strict bool) error {
	j := e.job
	e.amoSeq++
	seq := e.amoSeq
	var b [amoRequestBytes]byte
	le := binary.LittleEndian
	le.PutUint64(b[0:], seq)
	le.PutUint32(b[8:], d.Remote.ID)
	le.PutUint64(b[12:], uint64(d.RemoteOffset))
	b[20], b[21], b[22] = byte(d.AMO), d.Width, byte(boolInt(d.Fetch))
	le.PutUint64(b[23:], d.Operand)
	le.PutUint64(b[31:], d.Compare)
	e.amoWaiting[seq] = d
	if d.Target == e.rank {
		e.amoReply(e.performAMO(b[:]))
		return nil
	}
	if err := j.sendCtl(d.Target, tagAMORequest, b[:]); err != nil {
		delete(e.amoWaiting, seq)
		return err
	}
	if strict {
		// Strict: performed before anything else is issued.
		for i := 1; e.amoWaiting[seq] != nil; i++ {
			j.pollCtl()
			if j.aborted {
				return j.abortErr
			}
			j.pause(i)
		}
	}
	return nil
}

// serveAMO performs another PE's atomic and replies.
func (e *endpoint) serveAMO(src int, req []byte) {
	if len(req) != amoRequestBytes {
		e.job.fail(fmt.Errorf("mpi: PE %d: malformed atomic request of %d bytes from PE %d", e.rank, len(req), src))
		return
	}
	if err := e.job.sendCtl(src, tagAMOReply, e.performAMO(req)); err != nil {
		e.job.fail(err)
	}
}

// performAMO performs a request on this PE's memory and returns the
// reply: sequence number, old value, status, detail.
func (e *endpoint) performAMO(req []byte) []byte {
	le := binary.LittleEndian
	seq := le.Uint64(req[0:])
	id := le.Uint32(req[8:])
	off := int64(le.Uint64(req[12:]))
	op, width, fetch := conduit.AMOOp(req[20]), req[21], req[22] != 0
	operand, compare := le.Uint64(req[23:]), le.Uint64(req[31:])
	reply := make([]byte, 17, 64)
	le.PutUint64(reply[0:], seq)
	var mem []byte
	if id == conduit.SegmentID {
		mem = e.job.seg
	} else if r := e.regs[id]; r != nil {
		mem = r.buf
	}
	detail := ""
	switch {
	case mem == nil:
		detail = fmt.Sprintf("PE %d has no registration %d", e.rank, id)
	case off < 0 || off+int64(width) > int64(len(mem)):
		detail = fmt.Sprintf("range [%d,+%d) beyond PE %d's %d-byte registration", off, width, e.rank, len(mem))
	case uintptr(unsafe.Pointer(&mem[off]))%uintptr(width) != 0:
		detail = fmt.Sprintf("AMO word at offset %d of PE %d is misaligned", off, e.rank)
	}
	if detail != "" {
		reply[16] = byte(conduit.StatusError)
		return append(reply, detail...)
	}
	old := conduit.ApplyAMO(mem[off:off+int64(width)], op, width, operand, compare)
	if fetch {
		le.PutUint64(reply[8:], old)
	}
	e.progress++
	return reply
}

// amoReply completes an active-message atomic.
func (e *endpoint) amoReply(b []byte) {
	le := binary.LittleEndian
	seq := le.Uint64(b[0:])
	d := e.amoWaiting[seq]
	if d == nil {
		e.job.fail(fmt.Errorf("mpi: PE %d: reply to atomic %d, which is not in flight", e.rank, seq))
		return
	}
	delete(e.amoWaiting, seq)
	ev := conduit.Event{Desc: d, Status: conduit.Status(b[16])}
	if ev.Status == conduit.StatusOK {
		if d.Fetch {
			d.Result = le.Uint64(b[8:])
		}
	} else {
		ev.Detail = string(b[17:])
	}
	e.localCQ.push(ev)
}

// lookupRemote finds where another PE's registration lies: it asks the
// owner, once (registration ids are never reused, so the answer holds
// until the owner deregisters, after which using the handle is an error
// the owner reports).
func (e *endpoint) lookupRemote(owner int, id uint32) (remoteRegion, error) {
	key := regKey{owner, id}
	if rr, ok := e.regCache[key]; ok {
		return rr, nil
	}
	j := e.job
	var rr remoteRegion
	if owner == e.rank {
		rr = e.describe(id)
	} else {
		q := &regQuery{key: key}
		e.regQuery = q
		if err := j.sendCtl(owner, tagRegQuery, u64bytes(uint64(id))); err != nil {
			return rr, err
		}
		// The owner answers when it polls: a wait like any other, which
		// lasts as long as the owner computes and ends in the job's
		// deadlock report if every PE waits.
		if err := e.WaitFor(fmt.Sprintf("PE %d to say where its registration %d is", owner, id), q); err != nil {
			e.regQuery = nil
			return rr, err
		}
		rr = *q.reply
		e.regQuery = nil
	}
	if rr.ok {
		e.regCache[key] = rr
	}
	return rr, nil
}

// describe tells where this PE's registration id lies: its address in the
// dynamic window, or, for a registration inside the segment, its offset
// there.
func (e *endpoint) describe(id uint32) remoteRegion {
	r := e.regs[id]
	if r == nil {
		return remoteRegion{}
	}
	if e.job.inSegment(r.buf) {
		base := uintptr(unsafe.Pointer(unsafe.SliceData(e.job.seg)))
		return remoteRegion{ok: true, seg: true, addr: int64(uintptr(unsafe.Pointer(unsafe.SliceData(r.buf))) - base), bytes: int64(len(r.buf))}
	}
	if !r.attached {
		return remoteRegion{}
	}
	return remoteRegion{ok: true, addr: r.addr, bytes: int64(len(r.buf))}
}

func (e *endpoint) serveRegQuery(src int, b []byte) {
	id := uint32(binary.LittleEndian.Uint64(b))
	rr := e.describe(id)
	var reply [8 + 1 + 1 + 8 + 8]byte
	le := binary.LittleEndian
	le.PutUint64(reply[0:], uint64(id))
	reply[8], reply[9] = byte(boolInt(rr.ok)), byte(boolInt(rr.seg))
	le.PutUint64(reply[10:], uint64(rr.addr))
	le.PutUint64(reply[18:], uint64(rr.bytes))
	if err := e.job.sendCtl(src, tagRegReply, reply[:]); err != nil {
		e.job.fail(err)
	}
}

func (e *endpoint) regReply(src int, b []byte) {
	le := binary.LittleEndian
	id := uint32(le.Uint64(b[0:]))
	q := e.regQuery
	if q == nil || q.key != (regKey{src, id}) {
		return // an answer nobody waits for any more
	}
	q.reply = &remoteRegion{ok: b[8] != 0, seg: b[9] != 0, addr: int64(le.Uint64(b[10:])), bytes: int64(le.Uint64(b[18:]))}
}
