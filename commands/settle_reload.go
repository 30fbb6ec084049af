package commands

import (
	"svc/domain/payment"
	"svc/eventstore"
)

// SettleReload records the outcome of auto-reload reloadID of orgID in tx,
// under the org's lock: paid.Status ReloadPaidSucceeded appends
// AutoReloadSucceeded and the grant of its credits, ReloadPaidFailed
// AutoReloadFailed, ReloadPaidPending AutoReloadStarted (the processor's
// event tells the outcome later). A reload that is not pending any more
// (its outcome recorded by the job or by an earlier event) appends
// nothing: each reload is settled once, whoever learns its outcome first.
// It returns the outcome to record (payment.Outcome*).
func SettleReload(tx *eventstore.Tx, repos *Repositories, orgID, reloadID string, paid ReloadPaid) (string, error) {
	ledger, err := LoadLedger(tx, repos, orgID)
	if err != nil {
		return "", err
	}
	switch paid.Status {
	case ReloadPaidSucceeded:
		data, ok := ledger.ReloadSucceeded(reloadID, paid.PaymentID)
		if !ok {
			return payment.OutcomeReloadSettled, nil
		}
		_, err = repos.Ledgers.Save(tx, orgID, ledger, data...)
		return payment.OutcomeReloaded, err
	case ReloadPaidFailed:
		failed, ok := ledger.ReloadFailed(reloadID, paid.PaymentID, paid.Reason, paid.Message)
		if !ok {
			return payment.OutcomeReloadSettled, nil
		}
		_, err = repos.Ledgers.Save(tx, orgID, ledger, failed)
		return payment.OutcomeReloadFailed, err
	default:
		started, ok := ledger.ReloadStarted(reloadID, paid.PaymentID)
		if !ok {
			return payment.OutcomeReloadSettled, nil
		}
		_, err = repos.Ledgers.Save(tx, orgID, ledger, started)
		return payment.OutcomeApplied, err
	}
}
