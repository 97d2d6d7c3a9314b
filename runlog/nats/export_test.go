package natslog

// Delivered is how many messages the log's reads have received from
// JetStream so far.
func (l *Log) Delivered() uint64 { return l.delivered.Load() }
