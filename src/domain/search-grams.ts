/**
 * Short search terms (spec: list `search`): a term of one or two characters is found through the n-gram tables
 * ("InvoiceSearchGram", "TransactionSearchGram"), which hold, per row, every substring of one or two characters of its
 * searchText that has a character outside ASCII (the migration's `search_grams`, kept by triggers). A trigram index
 * cannot serve such a term (`김`, `민수`), so without them both the count and the page read every row of the workspace.
 * Longer terms keep the trigram index; short ASCII-only terms keep the plain LIKE.
 */

/**
 * The gram a normalised search term is looked up by, or null when the gram tables do not hold it: a term of one or two
 * characters (code points, as PostgreSQL's substr counts them) with at least one outside ASCII. Such a row has that gram
 * exactly when its searchText contains the term, which is what `"searchText" LIKE '%term%'` finds.
 */
export function shortSearchGram(term: string): string | null {
  const chars = [...term].length;
  return chars >= 1 && chars <= 2 && /[^\u0000-\u007f]/.test(term) ? term : null;
}

