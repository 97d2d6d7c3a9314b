//go:build race

package natslog_test

// manyRuns is how many concurrent runs TestManyRunsCutAndReattached starts:
// the race detector slows the in-process nats-server down so much on a
// shared machine that JetStream API calls time out, so it gets fewer.
const manyRuns = 40

// leaseScale multiplies the fault suite's lease (faultLease): the race detector slows the replicas several times over.
const leaseScale = 3
