package fabric

import (
	"testing"
	"unsafe"
)

func TestZZSize(t *testing.T) {
	t.Logf("Channel %d txn %d Packet %d txnRare %d vcState %d nic %d", unsafe.Sizeof(Channel{}), unsafe.Sizeof(txn{}), unsafe.Sizeof(Packet{}), unsafe.Sizeof(txnRare{}), unsafe.Sizeof(vcState{}), unsafe.Sizeof(nic{}))
}
