// Package integrity is the work of the integrity example
// (examples/integrity), callable from tests with any pgas.Config: every PE
// puts to and gets from every PE blocks of several sizes and checks every
// byte, then every PE fetch-adds to a counter on every PE, and the owners
// check both the totals and that the values fetched are all distinct. On
// a simulated network with links failing in the middle of the run
// (the backends' fail option), it checks that nothing is lost,
// duplicated or corrupted: lost packets time out and are retried by the
// runtime, AMOs are applied exactly once.
package integrity
