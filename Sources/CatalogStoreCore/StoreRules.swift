/// The rules both stores keep, written once: the SQLite store (`CatalogStore`) and the
/// PostgreSQL store (`CatalogPostgres`) call these, so that a rule cannot drift apart between the
/// two backends. What a store writes itself is only how it talks to its database.
///
/// Each facet is in a file of its own: `StoreRules+Journal` (how long the journal is, and the
/// changeset between a rebuilt revision and the present), `+Replacing` (what a whole catalogue
/// must be to be stored), `+Editing` (the changeset of an edit), `+Updates` (what observers are
/// sent), `+Schema` (a database a newer version migrated).
package enum StoreRules {}
