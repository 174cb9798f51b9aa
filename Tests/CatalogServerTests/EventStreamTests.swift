import CatalogDiff
import CatalogImport
import CatalogModel
import CatalogServer
import CatalogStore
import CatalogTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// `GET /catalogs/{name}/events` (docs/Live-updates.md): a snapshot, then one `changes` event per update with
/// the revision as its id, resumable with `Last-Event-ID`, kept alive, and refused up front for
/// bad input — on either backend (on PostgreSQL the writes come through the store, as another
/// instance's would).
@Suite struct EventStreamTests {
    static func move(_ store: any CatalogDatabase, _ item: String, to section: String, index: Int = 0) async throws {
        try await store.move(item: item, toSection: section, index: index, in: "shelf")
    }

    @Test(arguments: Backend.available)
    func aSnapshotThenEveryChangeInOrder(backend: Backend) async throws {
        try await ServerTests.withServer(on: backend) { client, store in
            let port = try #require(client.port)
            let stream = try RawConnection(port: port)
            stream.openEventStream("/catalogs/shelf/events")
            let first = await stream.awaitEvents(1)
            #expect(first.map(\.event) == ["snapshot"] && first.first?.id == "1", "\(stream.text.prefix(300))")
            #expect(first.first?.data.hasPrefix(#"{"catalog":"shelf","revision":1,"#) == true)
            // The stream says how long it stays silent at most, so a client can tell a dead one.
            #expect(stream.text.lowercased().contains("catalog-keep-alive: 15\r\n"), "\(stream.text.prefix(300))")
            try await Self.move(store, "a0", to: "b")
            try await Self.move(store, "a0", to: "c")
            let events = await stream.awaitEvents { $0.last?.id == "3" }
            #expect((2...3).contains(events.count) && events.last?.id == "3", "\(stream.text)")
            // The two moves arrive as one or two events, each from the revision the last ended at.
            var revision = 1
            for event in events.dropFirst() {
                #expect(event.event == "changes")
                let changeset = try JSONDecoder().decode(Changeset.self, from: Data(event.data.utf8))
                #expect(changeset.fromRevision == revision && event.id == changeset.toRevision.map(String.init))
                revision = changeset.toRevision ?? revision
            }
            // A client that stopped after revision 2 resumes with Last-Event-ID and gets the rest.
            let resumed = try RawConnection(port: port)
            resumed.openEventStream("/catalogs/shelf/events", headers: ["Last-Event-ID": "2"])
            try await Self.move(store, "b0", to: "c", index: 1)
            let rest = await resumed.awaitEvents { $0.last?.id == "4" }
            revision = 2
            for event in rest {
                let changeset = try JSONDecoder().decode(Changeset.self, from: Data(event.data.utf8))
                #expect(event.event == "changes" && changeset.fromRevision == revision)
                revision = changeset.toRevision ?? revision
            }
            #expect(revision == 4)
        }
    }

    /// `DELETE /catalogs/{name}`: conditional on `If-Match`, 404 for an unknown name; its event
    /// streams say the catalogue is gone and close; a catalogue imported again under the name
    /// sends a client that resumes from the old one a reset.
    /// `include=sections`: each change carries the sections that differ, whole, so that the
    /// catalogue before it plus those sections is the catalogue after it; a resumed stream's
    /// first change is taken from the revision the client named; a client far behind gets a reset.
    @Test(arguments: Backend.available)
    func changesCarryTheirSectionsForFollowers(backend: Backend) async throws {
        try await ServerTests.withServer(on: backend) { client, store in
            let port = try #require(client.port)
            var catalogs = [1: try await store.catalog(named: "shelf")]
            for (n, (item, section)) in [("a0", "b"), ("a0", "c"), ("b0", "a"), ("a1", "c")].enumerated() {
                try await Self.move(store, item, to: section)
                catalogs[n + 2] = try await store.catalog(named: "shelf")
            }
            for since in [1, 3] {
                let stream = try RawConnection(port: port)
                stream.openEventStream("/catalogs/shelf/events?include=sections", headers: ["Last-Event-ID": String(since)])
                let events = await stream.awaitEvents { $0.last?.id == "5" }
                var have = try #require(catalogs[since])
                for event in events {
                    #expect(event.event == "changes", "\(event)")
                    let data = Data(event.data.utf8)
                    let changeset = try JSONDecoder().decode(Changeset.self, from: data)
                    #expect(changeset.fromRevision == have.revision)
                    struct Members: Decodable { var catalog: String; var revision: Int; var sectionOrder: [String]? }
                    let members = try JSONDecoder().decode(Members.self, from: data)
                    var options = ImportOptions(format: .json)
                    options.shape = .native
                    let sections = try CatalogImporter.decode(data, fileName: "event", options: options).catalog.sections
                    var next = try have.applying(SectionPatch(sections: sections, order: members.sectionOrder))
                    next.revision = members.revision
                    #expect(members.catalog == "shelf" && next == catalogs[members.revision])
                    // Only the sections that differ.
                    #expect(sections.allSatisfy { section in have.sections.first { $0.id == section.id } != section })
                    #expect(changeset.violations(from: have, to: next) == [])
                    have = next
                }
                #expect(have.revision == 5)
                stream.close()
            }
            // Far behind (more revisions than twice the catalogue's items): a reset.
            for _ in 0..<40 { try await Self.move(store, "a1", to: "b"); try await Self.move(store, "a1", to: "c") }
            let far = try RawConnection(port: port)
            far.openEventStream("/catalogs/shelf/events?include=sections&since=1")
            let first = await far.awaitEvents(1)
            #expect(first.first?.event == "reset" && first.first?.id == "85", "\(far.text.prefix(200))")
            // Only "sections" is known.
            try await client.execute(uri: "/catalogs/shelf/events?include=items", method: .get) { response in
                try ServerTests.problem(response, status: 400, kind: "invalid-parameter")
            }
        }
    }

    @Test(arguments: Backend.available)
    func deletingACatalogueEndsItsStreams(backend: Backend) async throws {
        try await ServerTests.withServer(on: backend) { client, store in
            let port = try #require(client.port)
            let stream = try RawConnection(port: port)
            stream.openEventStream("/catalogs/shelf/events")
            #expect(await stream.awaitEvents(1).first?.event == "snapshot")
            try await Self.move(store, "a0", to: "b")  // revision 2

            try await client.execute(uri: "/catalogs/shelf", method: .delete, headers: [.ifMatch: "\"1\""]) {
                try ServerTests.problem($0, status: 412, kind: "precondition-failed")
            }
            try await client.execute(uri: "/catalogs/nope", method: .delete) { try ServerTests.problem($0, status: 404, kind: "unknown-catalog") }
            try await client.execute(uri: "/catalogs/shelf", method: .delete, headers: [.ifMatch: "soon"]) {
                try ServerTests.problem($0, status: 400, kind: "invalid-header")
            }
            try await client.execute(uri: "/catalogs/shelf", method: .delete, headers: [.ifMatch: "\"2\""]) { response in
                #expect(response.status == .ok)
                let body = try #require(try ServerTests.json(response.body) as? [String: Any])
                #expect(body["catalog"] as? String == "shelf" && body["revision"] as? Int == 2 && body["items"] as? Int == 3)
            }
            let events = await stream.awaitEvents { $0.last?.event == "deleted" }
            // Its last revision with it: the server keeps it (a catalogue made again goes on from it).
            let retired = try #require(try await store.retiredCatalogs()["shelf"])
            #expect(events.last?.event == "deleted" && events.last?.data == #"{"catalog":"shelf","revision":\#(retired)}"#, "\(stream.text)")
            // The response ends there (the chunked body's last chunk).
            _ = await stream.awaitStream { _ in stream.text.hasSuffix("\r\n0\r\n\r\n") }
            #expect(stream.text.hasSuffix("\r\n0\r\n\r\n"), "the stream went on after its catalogue was deleted: \(stream.text.suffix(200))")
            try await client.execute(uri: "/catalogs/shelf", method: .get) { try ServerTests.problem($0, status: 404, kind: "unknown-catalog") }

            // Imported again: it goes on from the deleted catalogue's revisions, and a client that
            // resumes from revision 2 of the old one is sent the new one whole.
            _ = try await store.replace([(ServerTests.shelves, nil)], progress: nil)
            #expect(try await store.revision(of: "shelf") == 4)
            let resumed = try RawConnection(port: port)
            resumed.openEventStream("/catalogs/shelf/events", headers: ["Last-Event-ID": "2"])
            let first = await resumed.awaitEvents(1)
            #expect(first.map(\.event) == ["reset"] && first.first?.id == "4", "\(resumed.text.prefix(300))")
        }
    }

    @Test(arguments: Backend.available)
    func keepAlivesWhileNothingHappens(backend: Backend) async throws {
        try await ServerTests.withServer(on: backend, ServerConfiguration(port: 0, keepAlive: 0.1)) { client, _ in
            let stream = try RawConnection(port: try #require(client.port))
            stream.openEventStream("/catalogs/shelf/events?since=1")
            // Two keep-alives come within 0.2 s; the wait ends then. Its limit is for a machine
            // whose cores the whole suite keeps busy, where the server may not run for seconds.
            let received = await stream.awaitStream(seconds: 60) { $0.keepAlives >= 2 }
            #expect(received.keepAlives >= 2 && received.events.isEmpty, "\(stream.text)")
        }
    }

    @Test(arguments: Backend.available)
    func badRequestsAreRefusedBeforeTheStream(backend: Backend) async throws {
        try await ServerTests.withServer(on: backend) { client, _ in
            for (uri, headers, status) in [("/catalogs/shelf/events?since=x", HTTPFields(), 400),
                                           ("/catalogs/shelf/events?since=-1", HTTPFields(), 400),
                                           ("/catalogs/shelf/events?since=2", HTTPFields(), 400),
                                           ("/catalogs/shelf/events", [.init("Last-Event-ID")!: "abc"], 400),
                                           ("/catalogs/nope/events", HTTPFields(), 404)] {
                try await client.execute(uri: uri, method: .get, headers: headers) { response in
                    #expect(response.status.code == status, "\(uri)")
                    #expect(response.headers[.contentType] == "application/problem+json")
                }
            }
        }
    }

    @Test func aSubscriberThatStopsReadingIsDisconnected() async throws {
        // Keep-alives every 0.2 s: once the writes stop, the next one cannot be flushed either.
        let configuration = ServerConfiguration(port: 0, keepAlive: 0.2, stallTimeout: 0.3)
        try await ServerTests.withServer(configuration) { client, store in
            let port = try #require(client.port)
            let stalled = try RawConnection(port: port, receiveBuffer: 4_096)
            stalled.openEventStream("/catalogs/shelf/events?since=1")
            // Each write replaces every item: too large a changeset, so each event is a reset
            // with the whole snapshot (about 1 MB). Never read, they fill the socket's buffers,
            // the server can no longer write, and after the stall timeout it hangs up.
            for round in 0..<24 {
                var big = ServerTests.shelves
                big.sections.append(Section(id: "big", kind: .icons, items: (0..<6_000).map {
                    Item(id: "r\(round)-\($0)", content: .icon(Icon(name: String(repeating: "n", count: 150), icon: "\($0)")))
                }))
                try store.replace(big, record: nil)
                // Time for the stream to send each as an event of its own.
                try await Task.sleep(for: .milliseconds(100))
            }
            try await Task.sleep(for: .seconds(1))
            #expect(await stalled.drainUntilClosed(quietFor: 10), "the stalled stream is still open")
            // Everyone else is still served (on a new connection: the test client's has idled).
            let other = try RawConnection(port: port)
            other.send("GET /catalogs/shelf HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(await other.awaitResponses(1), "\(other.text.prefix(200))")
            #expect(other.text.hasPrefix("HTTP/1.1 200"))
        }
    }
}

/// What a stream tells a device of its own writes, and how it resumes only on the history the
/// client holds (docs/Following-a-server.md#what-the-stream-says-of-the-device).
@Suite struct DeviceStreamTests {
    static func acknowledged(_ event: ServerSentEvent?) -> String? {
        guard let event, event.event == "acknowledged" else { return nil }
        return event.data
    }

    /// Before the stream's first event and every whole catalogue, a device that names its
    /// client id hears which of its numbered writes that state holds: none for a client the
    /// server has no record of, the last number once applied or refused — and nothing for a
    /// stream without a client id. A resume with the fingerprint of the catalogue the client
    /// holds gets changes; with another fingerprint (another history), a snapshot. The stream
    /// names the database's identity. (Before, a stream said nothing of the device's writes, and
    /// resumed on any history whose revision was high enough.)
    @Test(arguments: Backend.available)
    func theStreamSaysWhichOfTheDevicesWritesItsStateHolds(backend: Backend) async throws {
        try await ServerTests.withServer(on: backend) { client, store in
            let port = try #require(client.port)
            let fresh = try RawConnection(port: port)
            fresh.openEventStream("/catalogs/shelf/events?include=sections", headers: ["Catalog-Client-ID": "tab-1"])
            let none = await fresh.awaitEvents(2)
            #expect(none.map(\.event) == ["acknowledged", "snapshot"], "\(fresh.text.prefix(400))")
            #expect(Self.acknowledged(none.first) == #"{"client":"tab-1","number":0,"revision":1}"#)
            let identity = try await store.identity()
            #expect(identity.count >= 16 && fresh.text.lowercased().contains("catalog-server-id: \(identity)\r\n"), "\(fresh.text.prefix(400))")

            // Write 1 applied (revision 2), write 2 refused for good (an unknown section).
            let applied = try await ClientWriteHTTPTests.send(client, body: ClientWriteHTTPTests.move("b0", to: "c"),
                                                              headers: ClientWriteHTTPTests.numbered("tab-1", 1))
            #expect(applied.status == 200)
            let refused = try await ClientWriteHTTPTests.send(client, body: ClientWriteHTTPTests.move("a0", to: "nowhere"),
                                                              headers: ClientWriteHTTPTests.numbered("tab-1", 2))
            #expect(refused.status == 422, "\(refused.body)")
            let later = try RawConnection(port: port)
            later.openEventStream("/catalogs/shelf/events?include=sections", headers: ["Catalog-Client-ID": "tab-1"])
            let both = await later.awaitEvents(2)
            #expect(both.map(\.event) == ["acknowledged", "snapshot"] && both.last?.id == "2", "\(later.text.prefix(400))")
            #expect(Self.acknowledged(both.first) == #"{"client":"tab-1","number":2,"revision":2}"#)

            // Another client's write: a change, with nothing said of tab-1's writes.
            try await store.move(item: "a0", toSection: "b", index: 0, in: "shelf")
            let change = await later.awaitEvents(3)
            #expect(change.map(\.event) == ["acknowledged", "snapshot", "changes"], "\(later.text.suffix(400))")

            // A stream without a client id hears no acknowledgement.
            let anonymous = try RawConnection(port: port)
            anonymous.openEventStream("/catalogs/shelf/events?include=sections")
            #expect(await anonymous.awaitEvents(1).map(\.event) == ["snapshot"])

            // Resuming from revision 2 with its fingerprint: the changes, the first event
            // acknowledged. With the fingerprint of another history: a snapshot.
            let atTwo = CatalogExporter.fingerprint(try await store.catalog(named: "shelf", at: 2))
            let resumed = try RawConnection(port: port)
            resumed.openEventStream("/catalogs/shelf/events?include=sections",
                                    headers: ["Last-Event-ID": "2", "Catalog-Fingerprint": atTwo, "Catalog-Client-ID": "tab-1"])
            let rest = await resumed.awaitEvents(2)
            #expect(rest.map(\.event) == ["acknowledged", "changes"] && rest.last?.id == "3", "\(resumed.text.prefix(500))")
            #expect(Self.acknowledged(rest.first) == #"{"client":"tab-1","number":2,"revision":3}"#)
            let elsewhere = try RawConnection(port: port)
            elsewhere.openEventStream("/catalogs/shelf/events?include=sections",
                                      headers: ["Last-Event-ID": "2", "Catalog-Fingerprint": "0123456789abcdef"])
            let restarted = await elsewhere.awaitEvents(1)
            #expect(restarted.map(\.event) == ["snapshot"] && restarted.first?.id == "3", "\(elsewhere.text.prefix(400))")

            // A client id that is not one is refused before the stream starts.
            let bad = try RawConnection(port: port)
            bad.openEventStream("/catalogs/shelf/events", headers: ["Catalog-Client-ID": "no spaces"])
            await bad.awaitStream(seconds: 5) { _ in bad.text.contains("\r\n\r\n") }
            #expect(bad.text.hasPrefix("HTTP/1.1 400"), "\(bad.text.prefix(200))")
        }
    }

    /// `POST /events`: one stream carries the events of many catalogues, each with its
    /// `catalog:` line and its own acknowledgements, each resumable on its own; a catalogue the
    /// server lacks is said to be unknown, one resumed past the present (a restored server) gets
    /// its snapshot, one deleted ends its part while the others go on. A body no client of
    /// CatalogKit sends is refused before the stream starts.
    @Test(arguments: Backend.available)
    func oneStreamCarriesManyCatalogues(backend: Backend) async throws {
        try await ServerTests.withServer(on: backend) { client, store in
            let port = try #require(client.port)
            var archive = try await store.catalog(named: "shelf")
            archive.name = "archive"
            try await store.replace([(archive, nil)], progress: nil)
            try await store.move(item: "a0", toSection: "b", index: 0, in: "shelf")   // shelf at 2
            let atOne = CatalogExporter.fingerprint(try await store.catalog(named: "shelf", at: 1))
            let stream = try RawConnection(port: port)
            stream.openEventStreams("""
                {"catalogs": [{"name": "shelf", "since": 1, "fingerprint": "\(atOne)", "client": "tab-1"},
                              {"name": "archive", "since": 40, "client": "tab-1"}, {"name": "nowhere"}]}
                """)
            let first = await stream.awaitEvents(5)
            let byCatalogue = Dictionary(grouping: first, by: { $0.catalog ?? "" })
            #expect(byCatalogue["nowhere"]?.map(\.event) == ["unknown"] && byCatalogue["nowhere"]?.first?.data == #"{"catalog":"nowhere"}"#,
                    "\(stream.text.prefix(800))")
            // Resumed on its history: the change from 1, acknowledged first.
            #expect(byCatalogue["shelf"]?.map(\.event) == ["acknowledged", "changes"] && byCatalogue["shelf"]?.last?.id == "2", "\(stream.text.prefix(800))")
            #expect(byCatalogue["shelf"]?.first?.data == #"{"client":"tab-1","number":0,"revision":2}"#)
            // Past the present: the snapshot of the history the server has.
            #expect(byCatalogue["archive"]?.map(\.event) == ["acknowledged", "snapshot"] && byCatalogue["archive"]?.last?.id == "1",
                    "\(stream.text.prefix(800))")
            #expect(stream.text.lowercased().contains("catalog-server-id: \(try await store.identity())\r\n"))

            // A write to one catalogue reaches its part only.
            try await store.move(item: "a1", toSection: "c", index: 0, in: "archive")
            let moved = await stream.awaitEvents(6)
            #expect(moved.last?.catalog == "archive" && moved.last?.event == "changes" && moved.last?.id == "2", "\(stream.text.suffix(600))")
            // Deleted: its part ends; the others go on.
            _ = try await store.delete([(name: "archive", ifRevision: nil)])
            let deleted = await stream.awaitEvents(7)
            #expect(deleted.last?.catalog == "archive" && deleted.last?.event == "deleted", "\(stream.text.suffix(600))")
            // Named again: deleted at its last revision — not "unknown", as a name never had is.
            let gone = try RawConnection(port: port)
            gone.openEventStreams(#"{"catalogs": [{"name": "archive"}, {"name": "nowhere"}]}"#)
            let told = Dictionary(grouping: await gone.awaitEvents(2), by: { $0.catalog ?? "" })
            let retired = try #require(try await store.retiredCatalogs()["archive"])
            #expect(told["archive"]?.map(\.event) == ["deleted"] && told["archive"]?.first?.data == #"{"catalog":"archive","revision":\#(retired)}"#,
                    "\(gone.text.prefix(600))")
            #expect(told["nowhere"]?.map(\.event) == ["unknown"], "\(gone.text.prefix(600))")
            try await store.move(item: "a1", toSection: "c", index: 0, in: "shelf")
            let after = await stream.awaitEvents(8)
            #expect(after.last?.catalog == "shelf" && after.last?.event == "changes" && after.last?.id == "3", "\(stream.text.suffix(600))")

            // Refused before the stream starts.
            for body in ["not json", #"{"catalogs": []}"#, #"{"catalogs": [{"name": "shelf"}, {"name": "shelf"}]}"#,
                         #"{"catalogs": [{"name": "shelf", "since": -1}]}"#, #"{"catalogs": [{"name": "shelf", "client": "no spaces"}]}"#,
                         #"{"catalogs": [{"name": "a/b"}]}"#,
                         #"{"catalogs": ["# + Array(repeating: #"{"name": "x"}"#, count: 1_001).enumerated().map { #"{"name": "x\#($0.offset)"}"# }.joined(separator: ",") + "]}"] {
                let bad = try RawConnection(port: port)
                bad.openEventStreams(body)
                await bad.awaitStream(seconds: 10) { _ in bad.text.contains("\r\n\r\n") }
                #expect(bad.text.hasPrefix("HTTP/1.1 400"), "\(body.prefix(80)): \(bad.text.prefix(300))")
            }
        }
    }
}
