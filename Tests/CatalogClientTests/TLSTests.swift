import AsyncHTTPClient
import CatalogClient
import CatalogServer
import CatalogStore
import CatalogTestSupport
import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOSSL
import SwiftASN1
import Testing
import X509

/// `catalog serve --tls-cert --tls-key`: a device follows and writes over HTTPS, with a
/// certificate the test makes and trusts; the port speaks nothing but TLS.
@Suite struct TLSTests {
    /// A self-signed certificate for 127.0.0.1 and localhost, and its key, as PEM files.
    static func certificate(in folder: URL) throws -> (certificate: String, key: String) {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("CatalogKit test") }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3_600), notValidAfter: now.addingTimeInterval(86_400 * 30),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
            },
            issuerPrivateKey: .init(key))
        let certificatePath = folder.appendingPathComponent("cert.pem").path
        let keyPath = folder.appendingPathComponent("key.pem").path
        try certificate.serializeAsPEM().pemString.write(toFile: certificatePath, atomically: true, encoding: .utf8)
        try key.pemRepresentation.write(toFile: keyPath, atomically: true, encoding: .utf8)
        return (certificatePath, keyPath)
    }

    @Test func aDeviceFollowsAndWritesOverTLS() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = try Self.certificate(in: folder)
        let tls = try ServerConfiguration.tlsConfiguration(certificateFile: files.certificate, keyFile: files.key)
        #expect(throws: TLSFileError.self) { try ServerConfiguration.tlsConfiguration(certificateFile: files.key, keyFile: files.key) }
        #expect(throws: TLSFileError.self) { try ServerConfiguration.tlsConfiguration(certificateFile: files.certificate, keyFile: files.certificate) }

        let server = try CatalogStore.inMemory()
        try server.replace(FollowingTests.shelves)
        let (device, _) = try FollowingTests.deviceStore()
        var trusting = TLSConfiguration.makeClientConfiguration()
        trusting.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(files.certificate))
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration(tlsConfiguration: trusting))
        let app = CatalogServer.application(store: server, configuration: ServerConfiguration(port: 0, token: "s3cret", tls: tls, headTimeout: 300))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let url = URL(string: "https://127.0.0.1:\(port)")!
            // Plain HTTP on the port gets no answer of the API.
            let plain = HTTPClient(eventLoopGroupProvider: .singleton)
            let refused = await (try? plain.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/catalogs"), timeout: .seconds(30)))?.status
            #expect(refused == nil || refused != .ok)
            try await plain.shutdown()
            // A client that does not trust the certificate is refused by its TLS.
            let untrusting = HTTPClient(eventLoopGroupProvider: .singleton)
            await #expect(throws: (any Error).self) { try await untrusting.execute(HTTPClientRequest(url: url.absoluteString + "/health"), timeout: .seconds(30)) }
            try await untrusting.shutdown()

            let following = try CatalogClient(store: device, server: url, token: "s3cret", transport: AsyncHTTPClientTransport(http),
                                              retryingAfter: .milliseconds(20), atMost: .milliseconds(200))
            let task = Task { try await following.run(following: ["shelf"]) }
            try await waitUntil("the first snapshot over TLS") { try FollowingTests.same(device, server) }
            try await device.move(item: "b0", toSection: "c", index: 0, in: "shelf")
            try await waitUntil("the write on the server") { try server.catalog(named: "shelf").sections[2].items.map(\.id) == ["b0"] }
            _ = try await server.move(item: "a0", toSection: "b", in: "shelf")
            try await waitUntil("the server's write on the device") { try FollowingTests.same(device, server) }
            task.cancel()
            _ = await task.result
        }
        try await http.shutdown()
    }
}
