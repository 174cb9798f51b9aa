import CatalogTestSupport
import Testing

@Suite struct PostgresAvailabilityTests {
    /// The one line that says the PostgreSQL cases did not run (skipped), or a failure when they
    /// had to (CI sets `CATALOG_REQUIRE_POSTGRES`).
    @Test func postgresCasesRun() {
        guard TestPostgres.url == nil else { return }
        if TestPostgres.isRequired {
            Issue.record("CATALOG_REQUIRE_POSTGRES is set but no PostgreSQL server could be started or reached (CATALOG_TEST_POSTGRES_URL)")
        } else {
            print("PostgreSQL cases skipped: no PostgreSQL here (install it, or set CATALOG_TEST_POSTGRES_URL; see Scripts/postgres.sh)")
        }
    }
}
