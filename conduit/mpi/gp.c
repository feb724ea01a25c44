//go:build mpi

// The C side of the mpi backend: see cmpi.go.

#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include "gp.h"



int gp_init(int *provided, int *rank, int *size) {
	int inited = 0, rc;
	MPI_Initialized(&inited);
	if (!inited) {
		rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, provided);
		if (rc != MPI_SUCCESS) return rc;
	} else {
		MPI_Query_thread(provided);
	}
	rc = MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	if (rc != MPI_SUCCESS) return rc;
	rc = MPI_Comm_rank(MPI_COMM_WORLD, rank);
	if (rc != MPI_SUCCESS) return rc;
	return MPI_Comm_size(MPI_COMM_WORLD, size);
}

int gp_finalize(void) {
	int fin = 0;
	MPI_Finalized(&fin);
	if (fin) return MPI_SUCCESS;
	return MPI_Finalize();
}

void gp_abort(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

void gp_errstr(int code, char *buf, int n) {
	int len = 0;
	char s[MPI_MAX_ERROR_STRING];
	if (MPI_Error_string(code, s, &len) != MPI_SUCCESS) {
		len = 0;
	}
	if (len >= n) len = n - 1;
	memcpy(buf, s, len);
	buf[len] = 0;
}

void gp_version(char *buf, int n) {
	char s[MPI_MAX_LIBRARY_VERSION_STRING];
	int len = 0;
	MPI_Get_library_version(s, &len);
	if (len >= n) len = n - 1;
	memcpy(buf, s, len);
	buf[len] = 0;
}

gp_job *gp_new(void) {
	gp_job *j = calloc(1, sizeof(gp_job));
	for (int i = 0; i < GP_COMMS; i++) j->comm[i] = MPI_COMM_NULL;
	j->shm = MPI_COMM_NULL;
	j->done_req = j->exit_req = j->coll_req = MPI_REQUEST_NULL;
	return j;
}

int gp_dup(gp_job *j, int which) {
	int rc = MPI_Comm_dup(MPI_COMM_WORLD, &j->comm[which]);
	if (rc != MPI_SUCCESS) return rc;
	return MPI_Comm_set_errhandler(j->comm[which], MPI_ERRORS_RETURN);
}

// gp_split_shm splits the world by node; *nrank and *nsize are this
// process's rank and the size of its node's communicator.
int gp_split_shm(gp_job *j, int *nrank, int *nsize) {
	int rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &j->shm);
	if (rc != MPI_SUCCESS) return rc;
	MPI_Comm_set_errhandler(j->shm, MPI_ERRORS_RETURN);
	rc = MPI_Comm_rank(j->shm, nrank);
	if (rc != MPI_SUCCESS) return rc;
	return MPI_Comm_size(j->shm, nsize);
}

// gp_allgather_int gathers one int from every process of the world.
int gp_node_leader(gp_job *j, int *leader) {
	int me;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	return MPI_Allreduce(&me, leader, 1, MPI_INT, MPI_MIN, j->shm);
}

int gp_allgather_int(int v, int *out) {
	return MPI_Allgather(&v, 1, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD);
}

// gp_check_config compares n words across the world: *same is 1 when
// every process passed the same values.
int gp_check_config(int64_t *v, int n, int *same) {
	int64_t *mn = malloc(n * sizeof(int64_t)), *mx = malloc(n * sizeof(int64_t));
	int rc = MPI_Allreduce(v, mn, n, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
	if (rc == MPI_SUCCESS) rc = MPI_Allreduce(v, mx, n, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
	*same = 1;
	for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
		if (mn[i] != mx[i]) *same = 0;
	}
	free(mn);
	free(mx);
	return rc;
}

int gp_info(MPI_Info *info) {
	int rc = MPI_Info_create(info);
	if (rc != MPI_SUCCESS) return rc;
	// The runtime completes every operation with a flush; the window
	// needs no ordering of accumulates beyond MPI's atomicity.
	MPI_Info_set(*info, "accumulate_ordering", "none");
	MPI_Info_set(*info, "same_disp_unit", "true");
	return MPI_SUCCESS;
}

// gp_lock_seg opens a passive-target epoch on the segment's window to
// every process: MPI_Win_lock_all, or with each a shared lock on each
// process (MPI_Win_lock with MPI_MODE_NOCHECK), which means the same, but
// MPICH 4.0 completes an MPI_Win_flush to one target several times faster
// inside a lock on that target than inside MPI_Win_lock_all (Open MPI
// 4.1's MPI_Win_sync crashed on a window locked that way, so it keeps
// MPI_Win_lock_all).
int gp_lock_seg(gp_job *j, int each) {
	int n;
	if (!each) {
		int rc = MPI_Win_lock_all(MPI_MODE_NOCHECK, j->seg);
		if (rc == MPI_SUCCESS) j->locked_seg = -1;
		return rc;
	}
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	for (int t = 0; t < n; t++) {
		int rc = MPI_Win_lock(MPI_LOCK_SHARED, t, MPI_MODE_NOCHECK, j->seg);
		if (rc != MPI_SUCCESS) return rc;
		j->locked_seg = t + 1;
	}
	return MPI_SUCCESS;
}

// gp_win_segment allocates this process's segment. With shared 2 (one
// node, not MPICH) the segment is an MPI_Win_allocate_shared window over
// the world and RMA goes through it: Open MPI 4.1 crashed in
// MPI_Compare_and_swap on a window created over node-shared memory. With
// shared 1 it is
// memory shared with the processes of its node (MPI_Win_allocate_shared
// on the node's communicator), so that they can load and store it, and
// RMA goes through a second window created over the world on the same
// memory (MPI_Win_create): MPICH 4.0 (ch4:ucx) moves large puts and gets
// to a shared window's memory several times slower than to a created or
// allocated window's. Without shared it is an MPI_Win_allocate window over
// the world, MPI's own choice of memory and its fastest RMA within a node
// (MPICH maps it and copies directly).
int gp_win_segment(gp_job *j, int64_t bytes, int shared, int each, int *unified) {
	MPI_Info info;
	int rc = gp_info(&info);
	if (rc != MPI_SUCCESS) return rc;
	if (!shared) {
		rc = MPI_Win_allocate((MPI_Aint)bytes, 1, info, MPI_COMM_WORLD, &j->base, &j->seg);
		MPI_Info_free(&info);
		if (rc != MPI_SUCCESS) return rc;
		j->have_seg = 1;
		MPI_Win_set_errhandler(j->seg, MPI_ERRORS_RETURN);
		memset(j->base, 0, bytes);
		rc = gp_lock_seg(j, each);
		if (rc != MPI_SUCCESS) return rc;
		int *model = NULL, flag = 0;
		rc = MPI_Win_get_attr(j->seg, MPI_WIN_MODEL, &model, &flag);
		*unified = flag && *model == MPI_WIN_UNIFIED;
		return rc;
	}
	MPI_Info_set(info, "alloc_shared_noncontig", "true");
	rc = MPI_Win_allocate_shared((MPI_Aint)bytes, 1, info, j->shm, &j->base, &j->shw);
	if (rc != MPI_SUCCESS) {
		MPI_Info_free(&info);
		return rc;
	}
	j->have_shw = 1;
	MPI_Win_set_errhandler(j->shw, MPI_ERRORS_RETURN);
	memset(j->base, 0, bytes);
	rc = MPI_Win_lock_all(MPI_MODE_NOCHECK, j->shw);
	if (rc != MPI_SUCCESS) {
		MPI_Info_free(&info);
		return rc;
	}
	j->locked_shw = 1;
	if (shared == 2) {
		// The node is the whole job and RMA goes through the shared
		// window itself.
		j->seg = j->shw;
		MPI_Info_free(&info);
		int *model = NULL, flag = 0;
		rc = MPI_Win_get_attr(j->seg, MPI_WIN_MODEL, &model, &flag);
		*unified = flag && *model == MPI_WIN_UNIFIED;
		return rc;
	}
	rc = MPI_Win_create(j->base, (MPI_Aint)bytes, 1, info, MPI_COMM_WORLD, &j->seg);
	if (rc != MPI_SUCCESS) {
		MPI_Info_free(&info);
		return rc;
	}
	j->have_seg = 1;
	MPI_Win_set_errhandler(j->seg, MPI_ERRORS_RETURN);
	rc = gp_lock_seg(j, each);
	if (rc != MPI_SUCCESS) {
		MPI_Info_free(&info);
		return rc;
	}
	MPI_Info_free(&info);
	int *model = NULL, flag = 0;
	rc = MPI_Win_get_attr(j->seg, MPI_WIN_MODEL, &model, &flag);
	if (rc != MPI_SUCCESS) return rc;
	*unified = flag && *model == MPI_WIN_UNIFIED;
	return MPI_SUCCESS;
}

// gp_shared_query finds the segment of a process of this node (its rank
// in the window's communicator).
int gp_shared_query(gp_job *j, int rank, void **base) {
	MPI_Aint size;
	int disp;
	return MPI_Win_shared_query(j->shw, rank, &size, &disp, base);
}

int gp_win_dynamic(gp_job *j) {
	MPI_Info info;
	int rc = gp_info(&info);
	if (rc != MPI_SUCCESS) return rc;
	rc = MPI_Win_create_dynamic(info, MPI_COMM_WORLD, &j->dyn);
	MPI_Info_free(&info);
	if (rc != MPI_SUCCESS) return rc;
	j->have_dyn = 1;
	MPI_Win_set_errhandler(j->dyn, MPI_ERRORS_RETURN);
	rc = MPI_Win_lock_all(MPI_MODE_NOCHECK, j->dyn);
	if (rc == MPI_SUCCESS) j->locked_dyn = 1;
	return rc;
}

int gp_attach(gp_job *j, void *p, int64_t n, int64_t *addr) {
	MPI_Aint a;
	int rc = MPI_Win_attach(j->dyn, p, (MPI_Aint)n);
	if (rc != MPI_SUCCESS) return rc;
	rc = MPI_Get_address(p, &a);
	*addr = (int64_t)a;
	return rc;
}

int gp_detach(gp_job *j, void *p) { return MPI_Win_detach(j->dyn, p); }

// Transfers. dyn selects the dynamic window, where disp is an address.
// Longer than 1 GiB goes in pieces (MPI counts are ints).
int gp_put(gp_job *j, int dyn, void *src, int64_t n, int target, int64_t disp) {
	MPI_Win w = dyn ? j->dyn : j->seg;
	char *p = src;
	while (n > 0) {
		int c = n > (1 << 30) ? (1 << 30) : (int)n;
		int rc = MPI_Put(p, c, MPI_BYTE, target, (MPI_Aint)disp, c, MPI_BYTE, w);
		if (rc != MPI_SUCCESS) return rc;
		p += c;
		disp += c;
		n -= c;
	}
	return MPI_SUCCESS;
}

int gp_get(gp_job *j, int dyn, void *dst, int64_t n, int target, int64_t disp) {
	MPI_Win w = dyn ? j->dyn : j->seg;
	char *p = dst;
	while (n > 0) {
		int c = n > (1 << 30) ? (1 << 30) : (int)n;
		int rc = MPI_Get(p, c, MPI_BYTE, target, (MPI_Aint)disp, c, MPI_BYTE, w);
		if (rc != MPI_SUCCESS) return rc;
		p += c;
		disp += c;
		n -= c;
	}
	return MPI_SUCCESS;
}

// gp_flush and gp_flush_all complete the operations to one target or to
// all; with sync they then call MPI_Win_sync on the segment's window (the
// wait loop's sync, done in the same call).
int gp_flush(gp_job *j, int dyn, int target, int sync) {
	int rc = MPI_Win_flush(target, dyn ? j->dyn : j->seg);
	if (rc == MPI_SUCCESS && sync) rc = MPI_Win_sync(j->seg);
	return rc;
}

int gp_flush_all(gp_job *j, int dyn, int sync) {
	int rc = MPI_Win_flush_all(dyn ? j->dyn : j->seg);
	if (rc == MPI_SUCCESS && sync) rc = MPI_Win_sync(j->seg);
	return rc;
}

int gp_win_sync(gp_job *j) { return MPI_Win_sync(j->seg); }

// gp_xfer_sync is a put (put set) or get followed by the flush that
// completes it and the segment window's sync, in one call: a blocking
// access's whole round. It returns 0, or the failing call's error code
// times 4 plus which call it was (0 the put or get, 1 the flush, 2 the
// sync).
int64_t gp_xfer_sync(gp_job *j, int put, int dyn, void *buf, int64_t n, int target, int64_t disp) {
	int rc = put ? gp_put(j, dyn, buf, n, target, disp) : gp_get(j, dyn, buf, n, target, disp);
	if (rc != MPI_SUCCESS) return (int64_t)rc * 4;
	rc = MPI_Win_flush(target, dyn ? j->dyn : j->seg);
	if (rc != MPI_SUCCESS) return (int64_t)rc * 4 + 1;
	rc = MPI_Win_sync(j->seg);
	if (rc != MPI_SUCCESS) return (int64_t)rc * 4 + 2;
	return 0;
}

// gp_xfer_sync_addr is gp_xfer_sync for a local buffer in MPI's memory
// (the segment), given by its address.
int64_t gp_xfer_sync_addr(gp_job *j, int put, int dyn, uintptr_t buf, int64_t n, int target, int64_t disp) {
	return gp_xfer_sync(j, put, dyn, (void *)buf, n, target, disp);
}

// Atomics. kind: 0 uint32, 1 int32, 2 uint64, 3 int64, 4 double.
// op: 0 sum, 1 band, 2 bor, 3 bxor, 4 replace, 5 min, 6 max, 7 no_op;
// 8 is compare-and-swap.
MPI_Datatype gp_type(int kind) {
	switch (kind) {
	case 0: return MPI_UINT32_T;
	case 1: return MPI_INT32_T;
	case 2: return MPI_UINT64_T;
	case 3: return MPI_INT64_T;
	case 4: return MPI_DOUBLE;
	case 5: return MPI_FLOAT;
	}
	return MPI_DATATYPE_NULL;
}

MPI_Op gp_op(int op) {
	switch (op) {
	case 0: return MPI_SUM;
	case 1: return MPI_BAND;
	case 2: return MPI_BOR;
	case 3: return MPI_BXOR;
	case 4: return MPI_REPLACE;
	case 5: return MPI_MIN;
	case 6: return MPI_MAX;
	case 7: return MPI_NO_OP;
	case 9: return MPI_PROD;
	}
	return MPI_OP_NULL;
}

int gp_amo_slots(gp_job *j, int n) {
	j->amo = calloc(3 * (size_t)n, sizeof(uint64_t));
	j->namo = n;
	return j->amo ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

int gp_amo(gp_job *j, int dyn, int slot, int kind, int op, int fetch, int target, int64_t disp,
                  uint64_t operand, uint64_t compare) {
	MPI_Win w = dyn ? j->dyn : j->seg;
	uint64_t *s = j->amo + 3 * (size_t)slot;
	MPI_Datatype t = gp_type(kind);
	// 32-bit operands sit in the first four bytes of their words
	// (little- and big-endian alike, as they are stored as uint32).
	if (kind <= 1) {
		uint32_t o = (uint32_t)operand, c = (uint32_t)compare;
		memcpy(&s[0], &o, 4);
		memcpy(&s[1], &c, 4);
	} else {
		s[0] = operand;
		s[1] = compare;
	}
	s[2] = 0;
	if (op == 8) {
		return MPI_Compare_and_swap(&s[0], &s[1], &s[2], t, target, (MPI_Aint)disp, w);
	}
	if (fetch) {
		return MPI_Fetch_and_op(&s[0], &s[2], t, target, (MPI_Aint)disp, gp_op(op), w);
	}
	return MPI_Accumulate(&s[0], 1, t, target, (MPI_Aint)disp, 1, t, gp_op(op), w);
}

uint64_t gp_amo_result(gp_job *j, int slot, int kind) {
	uint64_t *s = j->amo + 3 * (size_t)slot;
	if (kind <= 1) {
		uint32_t v;
		memcpy(&v, &s[2], 4);
		return v;
	}
	return s[2];
}

// Messages. Buffers are slot bytes; nrecv receives are posted on the AM
// communicator in ring order.
int gp_msg_init(gp_job *j, int nrecv, int nsend, int slot) {
	j->nrecv = nrecv;
	j->nsend = nsend;
	j->slot = slot;
	j->rbuf = malloc((size_t)nrecv * slot);
	j->rreq = malloc(nrecv * sizeof(MPI_Request));
	j->rlen = calloc(nrecv, sizeof(int));
	j->rsrc = calloc(nrecv, sizeof(int));
	j->sbuf = malloc((size_t)nsend * slot);
	j->areq = malloc(nsend * sizeof(MPI_Request));
	j->aslot = malloc(nsend * sizeof(int));
	j->done_idx = malloc(nsend * sizeof(int));
	j->tidx = malloc(nsend * sizeof(int));
	j->tst = malloc(nsend * sizeof(MPI_Status));
	if (!j->tidx || !j->tst || !j->rbuf || !j->rreq || !j->rlen || !j->rsrc || !j->sbuf || !j->areq || !j->aslot || !j->done_idx)
		return MPI_ERR_NO_MEM;
	for (int i = 0; i < nrecv; i++) j->rreq[i] = MPI_REQUEST_NULL;
	j->nactive = 0;
	return MPI_SUCCESS;
}

int gp_post_recv(gp_job *j, int i) {
	return MPI_Irecv(j->rbuf + (size_t)i * j->slot, j->slot, MPI_BYTE, MPI_ANY_SOURCE, 1, j->comm[GP_AM], &j->rreq[i]);
}

char *gp_recv_buf(gp_job *j, int i) { return j->rbuf + (size_t)i * j->slot; }

// gp_test_recv tests receive i; when it has completed, am_done is 1 and
// its source and length are recorded (gp_recv_src, gp_recv_len).
int gp_test_recv(gp_job *j, int i) {
	MPI_Status st;
	int rc = MPI_Test(&j->rreq[i], &j->am_done, &st);
	if (rc != MPI_SUCCESS || !j->am_done) return rc;
	j->rsrc[i] = st.MPI_SOURCE;
	return MPI_Get_count(&st, MPI_BYTE, &j->rlen[i]);
}

int gp_recv_src(gp_job *j, int i) { return j->rsrc[i]; }
int gp_recv_len(gp_job *j, int i) { return j->rlen[i]; }

int gp_cancel_recv(gp_job *j, int i) {
	if (j->rreq[i] == MPI_REQUEST_NULL) return MPI_SUCCESS;
	int rc = MPI_Cancel(&j->rreq[i]);
	if (rc != MPI_SUCCESS) return rc;
	return MPI_Wait(&j->rreq[i], MPI_STATUS_IGNORE);
}

// gp_reap tests the active sends and frees the slots of those that have
// completed; it returns their number in *n and their slots in done_idx.
int gp_reap(gp_job *j) {
	int *n = &j->nreaped;
	*n = 0;
	if (j->nactive == 0) return MPI_SUCCESS;
	int outcount = 0;
	int *idx = j->tidx;
	int rc = MPI_Testsome(j->nactive, j->areq, &outcount, idx, j->tst);
	if (rc != MPI_SUCCESS || outcount == MPI_UNDEFINED || outcount == 0) return rc;
	for (int k = 0; k < outcount; k++) {
		int s = j->aslot[idx[k]];
		j->done_idx[k] = s;
	}
	// Compact: drop the completed (now MPI_REQUEST_NULL) entries.
	int w = 0;
	for (int r = 0; r < j->nactive; r++) {
		if (j->areq[r] != MPI_REQUEST_NULL) {
			j->areq[w] = j->areq[r];
			j->aslot[w] = j->aslot[r];
			w++;
		}
	}
	j->nactive = w;
	*n = outcount;
	return MPI_SUCCESS;
}

// gp_isend starts sending the n bytes the caller has put in send slot
// s.
int gp_isend(gp_job *j, int which, int target, int tag, int s, int n) {
	int rc = MPI_Isend(j->sbuf + (size_t)s * j->slot, n, MPI_BYTE, target, tag, j->comm[which], &j->areq[j->nactive]);
	if (rc != MPI_SUCCESS) return rc;
	j->aslot[j->nactive++] = s;
	return MPI_SUCCESS;
}

// gp_send_big sends a message larger than a slot, waiting for it.
int gp_send_big(gp_job *j, int which, int target, int tag, void *p, int n) {
	return MPI_Send(p, n, MPI_BYTE, target, tag, j->comm[which]);
}

// gp_probe looks for a message on communicator which: ct_found, and its
// source, tag and length.
int gp_probe(gp_job *j, int which) {
	MPI_Status st;
	int rc = MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, j->comm[which], &j->ct_found, &st);
	if (rc != MPI_SUCCESS || !j->ct_found) return rc;
	j->ct_src = st.MPI_SOURCE;
	j->ct_tag = st.MPI_TAG;
	return MPI_Get_count(&st, MPI_BYTE, &j->ct_len);
}

// gp_poll_in is one poll of what arrives, in one call: with sync
// MPI_Win_sync on the segment's window, then a probe of the control
// communicator (gp_probe) and, when slot is not negative, a test of that
// active-message receive (gp_test_recv).
int gp_poll_in(gp_job *j, int slot, int sync) {
	int rc = MPI_SUCCESS;
	j->am_done = 0;
	if (sync) rc = MPI_Win_sync(j->seg);
	if (rc == MPI_SUCCESS) rc = gp_probe(j, GP_CTL);
	if (rc == MPI_SUCCESS && slot >= 0) rc = gp_test_recv(j, slot);
	return rc;
}

// gp_spin drives MPI's progress for a waiting PE without returning to Go
// between polls: up to n rounds of gp_poll_in (without the sync) and, when
// an offloaded collective is in flight, a test of it; it stops as soon as
// anything arrives or completes, and ends with MPI_Win_sync.
int gp_spin(gp_job *j, int slot, int n) {
	int rc = MPI_SUCCESS, coll = j->coll_req != MPI_REQUEST_NULL;
	j->coll_done = 0;
	for (int k = 0; k < n && rc == MPI_SUCCESS; k++) {
		rc = gp_poll_in(j, slot, 0);
		if (rc != MPI_SUCCESS || j->am_done || j->ct_found) break;
		if (coll) {
			rc = MPI_Test(&j->coll_req, &j->coll_done, MPI_STATUS_IGNORE);
			if (j->coll_done) break;
		}
	}
	if (rc == MPI_SUCCESS) rc = MPI_Win_sync(j->seg);
	return rc;
}

int gp_recv(gp_job *j, int which, int src, int tag, void *p, int n) {
	return MPI_Recv(p, n, MPI_BYTE, src, tag, j->comm[which], MPI_STATUS_IGNORE);
}

// Barriers and exit: the done barrier (every PE's program has finished)
// and the exit reduction (how many messages each process must still
// receive).
int gp_done_start(gp_job *j) { return MPI_Ibarrier(j->comm[GP_DONE], &j->done_req); }

int gp_test_req(MPI_Request *r, int *done) { return MPI_Test(r, done, MPI_STATUS_IGNORE); }

int gp_done_test(gp_job *j, int *done) { return gp_test_req(&j->done_req, done); }

int gp_exit_start(gp_job *j, int64_t *counts, int n) {
	j->exit_in = malloc(n * sizeof(int64_t));
	j->exit_out = malloc(n * sizeof(int64_t));
	memcpy(j->exit_in, counts, n * sizeof(int64_t));
	return MPI_Iallreduce(j->exit_in, j->exit_out, n, MPI_INT64_T, MPI_SUM, j->comm[GP_DONE], &j->exit_req);
}

int gp_exit_test(gp_job *j, int *done) { return gp_test_req(&j->exit_req, done); }

int64_t gp_exit_count(gp_job *j, int i) { return j->exit_out[i]; }

// Offloaded collectives.
int gp_ibarrier(gp_job *j) { return MPI_Ibarrier(j->comm[GP_COLL], &j->coll_req); }

int gp_iallreduce(gp_job *j, int kind, int op, uint64_t v) {
	j->coll_width = (kind == 0 || kind == 1 || kind == 5) ? 4 : 8;
	j->coll_in = v;
	j->coll_out = 0;
	if (j->coll_width == 4) {
		j->coll_in32 = (uint32_t)v;
		j->coll_out32 = 0;
		return MPI_Iallreduce(&j->coll_in32, &j->coll_out32, 1, gp_type(kind), gp_op(op), j->comm[GP_COLL], &j->coll_req);
	}
	return MPI_Iallreduce(&j->coll_in, &j->coll_out, 1, gp_type(kind), gp_op(op), j->comm[GP_COLL], &j->coll_req);
}

int gp_coll_test(gp_job *j) { return gp_test_req(&j->coll_req, &j->coll_done); }

uint64_t gp_coll_result(gp_job *j) { return j->coll_width == 4 ? (uint64_t)j->coll_out32 : j->coll_out; }

// gp_free releases everything; every process calls it together.
int gp_free(gp_job *j, int *where) {
	int rc = MPI_SUCCESS, r;
	*where = 0;
	for (int i = 0; i < j->nrecv && j->rreq; i++) {
		r = gp_cancel_recv(j, i);
		if (r != MPI_SUCCESS && rc == MPI_SUCCESS) { rc = r; *where = 1; }
	}
	if (j->locked_seg < 0) {
		r = MPI_Win_unlock_all(j->seg);
		if (r != MPI_SUCCESS && rc == MPI_SUCCESS) { rc = r; *where = 2; }
	}
	for (int t = 0; t < j->locked_seg; t++) {
		r = MPI_Win_unlock(t, j->seg);
		if (r != MPI_SUCCESS && rc == MPI_SUCCESS) { rc = r; *where = 2; }
	}
	if (j->have_seg) {
		r = MPI_Win_free(&j->seg);
		if (r != MPI_SUCCESS && rc == MPI_SUCCESS) { rc = r; *where = 3; }
	}
	if (j->locked_shw) {
		r = MPI_Win_unlock_all(j->shw);
		if (r != MPI_SUCCESS && rc == MPI_SUCCESS) { rc = r; *where = 2; }
	}
	if (j->have_shw) {
		r = MPI_Win_free(&j->shw);
		if (r != MPI_SUCCESS && rc == MPI_SUCCESS) { rc = r; *where = 3; }
	}
	if (j->locked_dyn) {
		r = MPI_Win_unlock_all(j->dyn);
		if (r != MPI_SUCCESS && rc == MPI_SUCCESS) { rc = r; *where = 2; }
	}
	if (j->have_dyn) {
		r = MPI_Win_free(&j->dyn);
		if (r != MPI_SUCCESS && rc == MPI_SUCCESS) { rc = r; *where = 3; }
	}
	for (int i = 0; i < GP_COMMS; i++) {
		if (j->comm[i] != MPI_COMM_NULL) {
			r = MPI_Comm_free(&j->comm[i]);
			if (r != MPI_SUCCESS && rc == MPI_SUCCESS) { rc = r; *where = 4; }
		}
	}
	if (j->shm != MPI_COMM_NULL) MPI_Comm_free(&j->shm);
	free(j->rbuf); free(j->rreq); free(j->rlen); free(j->rsrc);
	free(j->sbuf); free(j->areq); free(j->aslot); free(j->done_idx); free(j->tidx); free(j->tst);
	free(j->amo); free(j->exit_in); free(j->exit_out);
	free(j);
	return rc;
}

void gp_yield(void) { sched_yield(); }
