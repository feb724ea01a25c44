package mpi

import (
	"os"
	"strconv"
)

// Name is the name the backend registers under.
const Name = "mpi"

// Launcher tells whether the process was started by an MPI launcher, from
// the variables the launchers put in every process's environment:
//
//   - PMI_RANK and PMI_SIZE: MPICH's mpiexec (Hydra), Intel MPI, and
//     Slurm's srun with --mpi=pmi2;
//   - OMPI_COMM_WORLD_RANK and OMPI_COMM_WORLD_SIZE: Open MPI's mpirun;
//   - PMIX_RANK: a PMIx launcher (srun --mpi=pmix, Open MPI 5's mpirun),
//     which gives no size (size is then 0).
//
// env looks a variable up (nil: the process environment). ok is false when
// none of them is set; name says which launcher's variables were found.
func Launcher(env func(string) (string, bool)) (name string, rank, size int, ok bool) {
	if env == nil {
		env = os.LookupEnv
	}
	get := func(k string) (int, bool) {
		s, found := env(k)
		if !found || s == "" {
			return 0, false
		}
		v, err := strconv.Atoi(s)
		return v, err == nil
	}
	if r, ok1 := get("OMPI_COMM_WORLD_RANK"); ok1 {
		s, _ := get("OMPI_COMM_WORLD_SIZE")
		return "Open MPI's mpirun", r, s, true
	}
	if r, ok1 := get("PMI_RANK"); ok1 {
		s, _ := get("PMI_SIZE")
		return "a PMI launcher (mpiexec, srun)", r, s, true
	}
	if r, ok1 := get("PMIX_RANK"); ok1 {
		return "a PMIx launcher (srun, mpirun)", r, 0, true
	}
	return "", 0, 0, false
}
