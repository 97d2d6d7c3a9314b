//go:build !race

package natslog_test

// manyRuns is how many concurrent runs TestManyRunsCutAndReattached starts.
const manyRuns = 200

// leaseScale multiplies the fault suite's lease (faultLease).
const leaseScale = 1
