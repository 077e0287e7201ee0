/** POST /bank-notifications, as src/http/app.ts calls it: the bank feed's route is rest-compat's (its table entry and wire). */
export { handleBankNotification } from '../../rest-compat/bank/notifications.ts';
