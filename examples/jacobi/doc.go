// Command jacobi runs a 1-D Jacobi relaxation on a grid block-distributed
// over the processing elements (PEs), exchanging halo cells with one-sided
// puts.
//
// The grid has -n interior points u[1..n] and fixed boundary values
// u[0] = -left and u[n+1] = -right; one iteration replaces every interior
// point by the mean of its neighbours, u'[i] = (u[i-1] + u[i+1]) / 2. PE r
// owns a contiguous block of the points, the first n % PEs PEs one point
// more than the others, and keeps it in a distributed array with a ghost
// cell at each end: local index 0 mirrors the left neighbour's last point
// (or holds the left boundary on PE 0) and local index count+1 the right
// neighbour's first point (or the right boundary on the last PE).
//
// Each iteration every PE writes its first and last points into its
// neighbours' ghost cells with implicit-handle puts (Array.PutNBI), and a
// Barrier completes the puts and tells everyone the ghosts are fresh;
// then every PE computes its block. The grid is double-buffered, ghost
// cells included: iteration k reads buffer k%2 and writes buffer (k+1)%2.
// That makes one barrier per iteration enough. While a PE still computes
// iteration k (reading buffer k%2), a faster neighbour may already put the
// halo of iteration k+1, but that goes into buffer (k+1)%2's ghost cells,
// which iteration k neither reads nor writes; the neighbour cannot write
// buffer k%2 again (iteration k+2) before passing the barrier of iteration
// k+1, which waits for the slow PE to finish iteration k.
//
// After -iters iterations every PE compares its block with a serial
// computation of the whole grid. Every point is computed from the same two
// values by the same expression in both, so the comparison demands exact
// equality; so does the maximal residual |(u[i-1] + u[i+1]) / 2 - u[i]|,
// reduced over the PEs with Allreduce(Max), against the serial one.
//
//	PGAS_PES=4 go run ./examples/jacobi -n 1000 -iters 500
package main
