/** Pieces the receipt screens share: links to a receipt and to an invoice, and an identifier as the API reads it. */
import { onLink } from '../../router.ts';
import { LIST } from './filters.ts';

export { LIST };

export function ReceiptLink({ id }: { id: string }) {
  return (
    <a href={`${LIST}/${id}`} onClick={onLink(`${LIST}/${id}`)}>
      {id}
    </a>
  );
}

/** The invoice a receipt is for, as a link to its detail in the Invoices section. */
export function InvoiceLink({ id }: { id: string }) {
  const to = `/dashboard/invoices/${id}`;
  return (
    <a href={to} onClick={onLink(to)}>
      {id}
    </a>
  );
}

/** What the merchant typed, digits only as the API reads identifiers (010-1234-5678 is 01012345678). */
export const digitsOf = (typed: string) => typed.replace(/[\s-]/g, '');
