module github.com/gopgas/gopgas

go 1.26.0

require (
	github.com/dustin/go-humanize v1.1.0 // indirect
	github.com/klauspost/cpuid/v2 v2.4.2 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	go.uber.org/goleak v1.3.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.41.0 // indirect
	pgregory.net/rapid v1.3.0 // indirect
)
