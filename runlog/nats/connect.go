package natslog

import (
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
)

// Connect connects to the NATS servers at url as a replica serving durable
// runs needs: it reconnects for as long as the outage lasts (nats.go's
// default gives up after 60 tries, two minutes, and leaves the connection
// closed for good), buffers what is published while it is away only up to
// 8 MiB, and tells logger of every disconnect, reconnect and asynchronous
// error. A nil logger is slog.Default(). opts come after these, so a caller
// can change any of them.
func Connect(url string, logger *slog.Logger, opts ...nats.Option) (*nats.Conn, error) {
	if logger == nil {
		logger = slog.Default()
	}
	base := []nats.Option{
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		nats.ReconnectJitter(250*time.Millisecond, time.Second),
		nats.ReconnectBufSize(8 << 20),
		nats.DisconnectErrHandler(func(nc *nats.Conn, err error) {
			if nc.IsClosed() {
				return // closed by its owner, not lost
			}
			logger.Warn("natslog: disconnected from NATS; reconnecting", "err", err)
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			logger.Info("natslog: reconnected to NATS", "url", nc.ConnectedUrlRedacted(), "reconnects", nc.Stats().Reconnects)
		}),
		nats.ClosedHandler(func(nc *nats.Conn) {
			if err := nc.LastError(); err != nil {
				logger.Error("natslog: NATS connection closed", "err", err)
			}
		}),
		nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
			subject := ""
			if sub != nil {
				subject = sub.Subject
			}
			logger.Error("natslog: NATS error", "subject", subject, "err", err)
		}),
	}
	return nats.Connect(url, append(base, opts...)...)
}
