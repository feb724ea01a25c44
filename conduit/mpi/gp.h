// The C side of the mpi backend; see cmpi.go.
#ifndef GOPGAS_MPI_GP_H
#define GOPGAS_MPI_GP_H
#include <mpi.h>
#include <stdint.h>

enum { GP_COMMS = 4 }; // am, ctl, done, coll
enum { GP_AM = 0, GP_CTL = 1, GP_DONE = 2, GP_COLL = 3 };

typedef struct {
	MPI_Comm comm[GP_COMMS];
	MPI_Comm shm;
	MPI_Win seg, shw, dyn;
	int have_seg, have_shw, have_dyn, locked_shw, locked_dyn;
	int locked_seg; // the segment's window is locked on ranks [0, locked_seg), or all (-1)
	char *base;

	// AM receive ring: nrecv slots of slot bytes, posted in ring order.
	int nrecv, slot;
	char *rbuf;
	MPI_Request *rreq;
	int *rlen, *rsrc;

	// Sends: nsend slots of slot bytes; the active ones dense in areq.
	int nsend;
	char *sbuf;
	MPI_Request *areq;
	int *aslot, nactive;
	int *done_idx, *tidx;
	MPI_Status *tst;

	// Atomics staged for MPI: 3 words a slot (operand, compare, result).
	uint64_t *amo;
	int namo;

	MPI_Request done_req, exit_req, coll_req;
	int64_t *exit_in, *exit_out;
	uint64_t coll_in, coll_out;
	uint32_t coll_in32, coll_out32;
	int coll_width;

	// What the polling calls found, in C memory so that the Go side
	// passes them no pointers (a Go variable whose address goes to C
	// escapes to the heap: an allocation on every poll).
	int am_done;                           // the tested receive completed
	int ct_found, ct_src, ct_tag, ct_len;  // a control message is waiting
	int coll_done;                         // the offloaded collective completed
	int nreaped;                           // sends gp_reap found complete
} gp_job;

int gp_init(int *provided, int *rank, int *size);
int gp_finalize(void);
void gp_abort(int code);
void gp_errstr(int code, char *buf, int n);
void gp_version(char *buf, int n);
gp_job *gp_new(void);
int gp_dup(gp_job *j, int which);
int gp_split_shm(gp_job *j, int *nrank, int *nsize);
int gp_node_leader(gp_job *j, int *leader);
int gp_allgather_int(int v, int *out);
int gp_check_config(int64_t *v, int n, int *same);
int gp_info(MPI_Info *info);
int gp_lock_seg(gp_job *j, int each);
int gp_win_segment(gp_job *j, int64_t bytes, int shared, int each, int *unified);
int gp_shared_query(gp_job *j, int rank, void **base);
int gp_win_dynamic(gp_job *j);
int gp_attach(gp_job *j, void *p, int64_t n, int64_t *addr);
int gp_detach(gp_job *j, void *p);
int gp_put(gp_job *j, int dyn, void *src, int64_t n, int target, int64_t disp);
int gp_get(gp_job *j, int dyn, void *dst, int64_t n, int target, int64_t disp);
int gp_flush(gp_job *j, int dyn, int target, int sync);
int gp_flush_all(gp_job *j, int dyn, int sync);
int gp_win_sync(gp_job *j);
int64_t gp_xfer_sync(gp_job *j, int put, int dyn, void *buf, int64_t n, int target, int64_t disp);
int64_t gp_xfer_sync_addr(gp_job *j, int put, int dyn, uintptr_t buf, int64_t n, int target, int64_t disp);
MPI_Datatype gp_type(int kind);
MPI_Op gp_op(int op);
int gp_amo_slots(gp_job *j, int n);
int gp_amo(gp_job *j, int dyn, int slot, int kind, int op, int fetch, int target, int64_t disp,
                  uint64_t operand, uint64_t compare);
uint64_t gp_amo_result(gp_job *j, int slot, int kind);
int gp_msg_init(gp_job *j, int nrecv, int nsend, int slot);
int gp_post_recv(gp_job *j, int i);
char *gp_recv_buf(gp_job *j, int i);
int gp_test_recv(gp_job *j, int i);
int gp_recv_src(gp_job *j, int i);
int gp_recv_len(gp_job *j, int i);
int gp_cancel_recv(gp_job *j, int i);
int gp_reap(gp_job *j);
int gp_isend(gp_job *j, int which, int target, int tag, int s, int n);
int gp_send_big(gp_job *j, int which, int target, int tag, void *p, int n);
int gp_probe(gp_job *j, int which);
int gp_poll_in(gp_job *j, int slot, int sync);
int gp_spin(gp_job *j, int slot, int n);
int gp_recv(gp_job *j, int which, int src, int tag, void *p, int n);
int gp_done_start(gp_job *j);
int gp_test_req(MPI_Request *r, int *done);
int gp_done_test(gp_job *j, int *done);
int gp_exit_start(gp_job *j, int64_t *counts, int n);
int gp_exit_test(gp_job *j, int *done);
int64_t gp_exit_count(gp_job *j, int i);
int gp_ibarrier(gp_job *j);
int gp_iallreduce(gp_job *j, int kind, int op, uint64_t v);
int gp_coll_test(gp_job *j);
uint64_t gp_coll_result(gp_job *j);
int gp_free(gp_job *j, int *where);
void gp_yield(void);

#endif
