package pgas_test

import (
	"fmt"

	"github.com/gopgas/gopgas/am"
	"github.com/gopgas/gopgas/pgas"
)

// The examples run small jobs on the shared-memory backend. Every PE runs
// the program; only PE 0 prints, after a barrier or a collective has made
// every PE's part visible, so that the output does not depend on how the
// PEs were scheduled.

// Each PE writes its rank into an array element of its right-hand
// neighbour with Put; after the barrier, PE 0 reads every PE's element
// with Get.
func Example() {
	err := pgas.Run(pgas.Config{Conduit: "smp", PEs: 4}, func(pe *pgas.PE) error {
		a, err := pgas.NewArray[int64](pe, 1) // symmetric: one element on every PE
		if err != nil {
			return err
		}
		right := (pe.Rank() + 1) % pe.Size()
		if err := a.Put(right, 0, []int64{int64(pe.Rank())}); err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil { // every Put is complete after it
			return err
		}
		if pe.Rank() == 0 {
			v := make([]int64, 1)
			for r := range pe.Size() {
				if err := a.Get(r, 0, v); err != nil {
					return err
				}
				fmt.Printf("PE %d holds %d\n", r, v[0])
			}
		}
		return pe.Barrier() // PE 0's reads are done before anyone frees
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// PE 0 holds 3
	// PE 1 holds 0
	// PE 2 holds 1
	// PE 3 holds 2
}

// Non-blocking transfers return a Handle at once; the buffers must not be
// touched until it completes. PE 0 writes a block to every other PE and
// reads them all back, each batch of transfers in flight together.
func ExampleArray_PutNB() {
	err := pgas.Run(pgas.Config{Conduit: "smp", PEs: 4}, func(pe *pgas.PE) error {
		const n = 4
		a, err := pgas.NewArray[int32](pe, n)
		if err != nil {
			return err
		}
		if pe.Rank() == 0 {
			src := make([][]int32, pe.Size())
			var hs []pgas.Handle
			for r := 1; r < pe.Size(); r++ {
				src[r] = []int32{int32(r), int32(10 * r), int32(100 * r), int32(1000 * r)}
				h, err := a.PutNB(r, 0, src[r])
				if err != nil {
					return err
				}
				hs = append(hs, h)
			}
			if err := pgas.WaitAll(hs...); err != nil {
				return err
			}
			dst := make([][]int32, pe.Size())
			hs = hs[:0]
			for r := 1; r < pe.Size(); r++ {
				dst[r] = make([]int32, n)
				h, err := a.GetNB(r, 0, dst[r])
				if err != nil {
					return err
				}
				hs = append(hs, h)
			}
			if err := pgas.WaitAll(hs...); err != nil {
				return err
			}
			for r := 1; r < pe.Size(); r++ {
				fmt.Printf("PE %d: %v\n", r, dst[r])
			}
		}
		return pe.Barrier()
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// PE 1: [1 10 100 1000]
	// PE 2: [2 20 200 2000]
	// PE 3: [3 30 300 3000]
}

// Every PE adds to a counter on PE 0 and takes a ticket from another: the
// atomics make every update count, whatever the order in which they land.
func ExampleFetchAdd() {
	err := pgas.Run(pgas.Config{Conduit: "smp", PEs: 4}, func(pe *pgas.PE) error {
		words, err := pgas.NewArray[int64](pe, 2) // a sum and a ticket counter
		if err != nil {
			return err
		}
		sum, ticket := words.At(0, 0), words.At(0, 1)
		if err := pgas.Atomic(pe, pgas.AtomicAdd, sum, int64(pe.Rank()+1)); err != nil {
			return err
		}
		t, err := pgas.FetchAdd(pe, ticket, 1) // 0, 1, 2 or 3: each exactly once
		if err != nil {
			return err
		}
		tickets := make([]int64, pe.Size())
		if err := pgas.Gather(pe.World(), 0, []int64{t}, tickets); err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if pe.Rank() == 0 {
			seen := make([]bool, pe.Size())
			for _, t := range tickets {
				seen[t] = true
			}
			fmt.Println("sum:", words.Local()[0])
			fmt.Println("tickets handed out:", words.Local()[1], "each once:", seen)
		}
		return pe.Barrier()
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// sum: 10
	// tickets handed out: 4 each once: [true true true true]
}

// Collectives run over a team, here every PE (PE.World): Broadcast copies
// the root's buffer to every member, Allreduce combines one buffer per
// member element by element and gives every member the result.
func ExampleAllreduce() {
	err := pgas.Run(pgas.Config{Conduit: "smp", PEs: 4}, func(pe *pgas.PE) error {
		world := pe.World()
		params := []float64{0, 0}
		if pe.Rank() == 0 {
			params = []float64{1.5, 2}
		}
		if err := pgas.Broadcast(world, 0, params); err != nil {
			return err
		}
		// Each PE's share of the work, scaled by the broadcast parameters.
		mine := []float64{params[0] * float64(pe.Rank()), params[1]}
		total := make([]float64, 2)
		if err := pgas.Allreduce(world, pgas.Sum, mine, total); err != nil {
			return err
		}
		largest := make([]int32, 1)
		if err := pgas.Allreduce(world, pgas.Max, []int32{int32(pe.Rank() * pe.Rank())}, largest); err != nil {
			return err
		}
		if pe.Rank() == 0 {
			fmt.Println("sum:", total, "max:", largest[0])
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// sum: [9 8] max: 9
}

// Team.Split divides a team: here the even and the odd PEs form one team
// each, ranked by their world rank. Each team sums its members' ranks; the
// world then gathers every PE's team rank and team sum on PE 0.
func ExampleTeam_Split() {
	err := pgas.Run(pgas.Config{Conduit: "smp", PEs: 6}, func(pe *pgas.PE) error {
		team, err := pe.World().Split(pe.Rank()%2, pe.Rank())
		if err != nil {
			return err
		}
		sum := make([]int64, 1)
		if err := pgas.Allreduce(team, pgas.Sum, []int64{int64(pe.Rank())}, sum); err != nil {
			return err
		}
		all := make([]int64, 2*pe.Size())
		if err := pgas.Gather(pe.World(), 0, []int64{int64(team.Rank()), sum[0]}, all); err != nil {
			return err
		}
		if pe.Rank() == 0 {
			for r := range pe.Size() {
				fmt.Printf("PE %d: rank %d of its team, team sum %d\n", r, all[2*r], all[2*r+1])
			}
		}
		return team.Destroy()
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// PE 0: rank 0 of its team, team sum 6
	// PE 1: rank 0 of its team, team sum 9
	// PE 2: rank 1 of its team, team sum 6
	// PE 3: rank 1 of its team, team sum 9
	// PE 4: rank 2 of its team, team sum 6
	// PE 5: rank 2 of its team, team sum 9
}

// Active messages (package am) run a handler on the target PE when it
// makes progress. Every PE registers the same handlers in the same order,
// then a barrier makes sure they are there before anyone sends. Each PE
// asks PE 0 for the square of its rank; PE 0's request handler answers
// with a reply, whose handler runs back on the asking PE.
func ExamplePE_AM() {
	err := pgas.Run(pgas.Config{Conduit: "smp", PEs: 4}, func(pe *pgas.PE) error {
		ep := pe.AM()
		answer := int32(-1)
		asked := 0
		hAnswer, err := ep.Register("answer", func(m *am.Message) error {
			answer = m.Args[0]
			return nil
		})
		if err != nil {
			return err
		}
		hSquare, err := ep.Register("square", func(m *am.Message) error {
			asked++
			x := m.Args[0]
			return m.ReplyShort(hAnswer, x*x)
		})
		if err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if err := ep.RequestShort(0, hSquare, int32(pe.Rank())); err != nil {
			return err
		}
		// The reply's handler runs inside this PE's waits.
		if err := pe.WaitUntil("the answer", func() bool { return answer >= 0 }); err != nil {
			return err
		}
		answers := make([]int32, pe.Size())
		if err := pgas.Gather(pe.World(), 0, []int32{answer}, answers); err != nil {
			return err
		}
		if pe.Rank() == 0 {
			fmt.Println("requests handled by PE 0:", asked)
			fmt.Println("answers:", answers)
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// requests handled by PE 0: 4
	// answers: [0 1 4 9]
}

// A token goes round a ring of PEs with Send and Recv: each PE adds its
// rank and passes it on; PE 0 starts it and prints what comes back.
func ExamplePE_Send() {
	err := pgas.Run(pgas.Config{Conduit: "smp", PEs: 4}, func(pe *pgas.PE) error {
		right := (pe.Rank() + 1) % pe.Size()
		left := (pe.Rank() + pe.Size() - 1) % pe.Size()
		token := []int64{0}
		if pe.Rank() == 0 {
			if err := pgas.SendT(pe, right, 0, token); err != nil {
				return err
			}
		}
		st, err := pgas.RecvT(pe, left, 0, token)
		if err != nil {
			return err
		}
		if pe.Rank() == 0 {
			fmt.Printf("the token came back from PE %d holding %d (%d bytes)\n", st.Source, token[0], st.Bytes)
			return nil
		}
		token[0] += int64(pe.Rank())
		return pgas.SendT(pe, right, 0, token)
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output: the token came back from PE 3 holding 6 (8 bytes)
}
