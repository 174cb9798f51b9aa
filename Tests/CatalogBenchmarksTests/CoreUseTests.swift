import Foundation
import Testing
@testable import CatalogBenchmarks

/// The cluster load test's account of the cores: `/proc`'s lines read exactly (a command with
/// spaces and parentheses included), and the shares between two readings.
@Suite struct CoreUseTests {
    @Test func aProcessLineIsReadFromItsLastParenthesis() throws {
        let line = "1234 (catalog (serve) x) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 30 0 0 20 0 9 0 55 0 0\n"
        let (command, time) = try #require(CoreUse.processTime(stat: line))
        #expect(command == "catalog (serve) x")
        #expect(time == 280)
        #expect(CoreUse.processTime(stat: "1234 (cut short) S 1 2") == nil)
        #expect(CoreUse.processTime(stat: "no parentheses") == nil)
    }

    @Test func theMachineLineCountsEveryStateButGuestTime() throws {
        let stat = "cpu  100 5 50 800 20 1 2 3 40 0\ncpu0 50 2 25 400 10 0 1 1 20 0\n"
        let (total, idle) = try #require(CoreUse.machineTimes(stat))
        #expect(total == 981)
        #expect(idle == 820)
        #expect(CoreUse.machineTimes("intr 1 2 3\n") == nil)
    }

    @Test func sharesCountProcessesThatStartedAndDropThoseThatEnded() throws {
        let before = CoreUse.Sample(total: 1_000, idle: 100, instances: [1: 10, 2: 20], postgres: [5: 7, 9: 40], clients: 3)
        let after = CoreUse.Sample(total: 2_000, idle: 300, instances: [1: 410, 2: 20], postgres: [5: 107, 6: 50], clients: 103)
        let use = try #require(CoreUse(from: before, to: after))
        #expect(use == CoreUse(instances: 0.4, postgres: 0.15, clients: 0.1, idle: 0.2))
        #expect(use.summary == "40 / 15 / 10 / 20 %")
        #expect(CoreUse(from: after, to: after) == nil)
    }

    #if os(Linux)
    @Test func thisProcessIsFoundInProc() throws {
        let (command, _) = try #require(CoreUse.processTime(getpid()))
        #expect(!command.isEmpty)
        let sample = try #require(CoreUse.sample(instances: [getpid()]))
        #expect(sample.instances[getpid()] != nil)
        #expect(sample.total > 0)
    }
    #endif
}
