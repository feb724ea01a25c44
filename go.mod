module github.com/gopgas/gopgas

go 1.26.0

require (
	github.com/dustin/go-humanize v1.1.0
	github.com/klauspost/cpuid/v2 v2.4.2
	go.uber.org/goleak v1.3.0
)

require (
	github.com/stretchr/testify v1.12.1 // indirect
	golang.org/x/sys v0.41.0 // indirect
)
