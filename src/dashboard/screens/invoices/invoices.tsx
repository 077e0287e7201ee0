/**
 * Invoices: the list with the REST list's filters (list.tsx), a new invoice (create.tsx, /dashboard/invoices/new) and
 * one invoice with its actions (detail.tsx, /dashboard/invoices/<id>).
 */
import { useLocation } from '../../router.ts';
import type { ScreenProps } from '../../screens.ts';
import { CreateInvoice } from './create.tsx';
import { InvoiceDetail } from './detail.tsx';
import { InvoiceList } from './list.tsx';

/** A path segment decoded; a malformed escape is kept as typed (the API then says the id is not an invoice's). */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export default function InvoicesScreen({ lang, rest }: ScreenProps) {
  const { search } = useLocation();
  if (rest === '' || rest === '/') return <InvoiceList lang={lang} search={search} />;
  if (rest === '/new') return <CreateInvoice lang={lang} />;
  const id = decoded(rest.slice(1));
  // Keyed by the id: another invoice starts with its own forms closed.
  return <InvoiceDetail key={id} lang={lang} id={id} />;
}
