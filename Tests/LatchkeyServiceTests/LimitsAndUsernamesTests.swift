import Foundation
@testable import LatchkeyService
import LatchkeyStore
import Testing

/// Rate limits, challenge caps and client addresses as values, and the rules of usernames: the service's, without
/// HTTP (LatchkeyServerTests has the limits through the router).
@Suite struct LimitsAndUsernamesTests {
    static let client = ClientAddress.Resolver(trustedProxies: []).client(peer: "203.0.113.7", forwardedFor: [])

    @Test func aTokenBucketServesItsBurstThenItsRate() {
        let buckets = TokenBuckets(rate: 2, burst: 3)
        let decisions = (0..<4).map { _ in buckets.take(for: Self.client, now: 100) }
        #expect(decisions == [.allowed, .allowed, .allowed, .refused(retryAfter: 1)])
        // Half a second later one token is back, and only one.
        #expect(buckets.take(for: Self.client, now: 100.5) == .allowed)
        #expect(buckets.take(for: Self.client, now: 100.5) == .refused(retryAfter: 1))
        // Another client has its own bucket.
        let other = ClientAddress.Resolver(trustedProxies: []).client(peer: "203.0.113.8", forwardedFor: [])
        #expect(buckets.take(for: other, now: 100.5) == .allowed)
    }

    @Test func fullBucketsAreForgotten() {
        let buckets = TokenBuckets(rate: 10, burst: 10, sweepThreshold: 100)
        for i in 0..<200 {
            _ = buckets.take(for: ClientAddress.Resolver(trustedProxies: []).client(peer: "10.0.\(i / 256).\(i % 256)", forwardedFor: []), now: 0)
        }
        #expect(buckets.trackedClients > 100)
        // Seconds later every bucket is full again: the next request sweeps them out.
        _ = buckets.take(for: Self.client, now: 5)
        #expect(buckets.trackedClients == 1)
    }

    /// Reconciling: the draws are handed over once (back again when the report failed), and a bucket becomes its
    /// shared one less what was taken since the draws were handed over.
    @Test func aBucketBecomesItsSharedOneLessWhatWasTakenSince() {
        let alone = TokenBuckets(rate: 1, burst: 5)
        _ = alone.take(for: Self.client, now: 100)
        #expect(alone.takeDraws().isEmpty, "buckets that count alone keep no draws")
        let buckets = TokenBuckets(rate: 1, burst: 5, sharing: true)
        for _ in 0..<3 { _ = buckets.take(for: Self.client, now: 100) }
        let draws = buckets.takeDraws()
        #expect(draws == [Self.client: 3])
        #expect(buckets.takeDraws().isEmpty, "handed over once")
        buckets.returnDraws(draws)
        #expect(buckets.takeDraws() == [Self.client: 3], "a failed report's draws go with the next one")
        _ = buckets.take(for: Self.client, now: 100)
        // Other instances took the rest and more: the shared bucket is overdrawn; one taken here since counts on top.
        buckets.reconcile(shared: [Self.client: -1], now: 100)
        #expect(buckets.take(for: Self.client, now: 101) == .refused(retryAfter: 2))
        // A client this instance never saw, empty elsewhere, is refused here too.
        let stranger = ClientAddress(key: "198.51.100.99")
        buckets.reconcile(shared: [stranger: 0.5], now: 100)
        #expect(buckets.take(for: stranger, now: 100) == .refused(retryAfter: 1))
        #expect(buckets.take(for: stranger, now: 100.5) == .allowed)
    }

    /// A tenant's buckets made after a reconcile (the tenant not served here yet, or its limits changed) start from
    /// what the shared store said, not full: an instance that joins gives a drained client no extra burst.
    @Test func newBucketsStartFromTheLastSharedState() {
        let shop = TenantID("shop")!
        let limits = ClientLimits(sharing: true, clock: { 100 })
        limits.remember(shared: [shop: [Self.client: 0]])
        #expect(limits.buckets(for: shop, rate: 1, burst: 5).take(for: Self.client) == .refused(retryAfter: 1), "empty elsewhere")
        #expect(limits.buckets(for: shop, rate: 2, burst: 10).take(for: Self.client) == .refused(retryAfter: 1), "limits changed")
        #expect(limits.buckets(for: .default, rate: 1, burst: 5).take(for: Self.client) == .allowed, "another tenant's bucket")
        let alone = ClientLimits(sharing: false, clock: { 100 })
        alone.remember(shared: [shop: [Self.client: 0]])
        #expect(alone.buckets(for: shop, rate: 1, burst: 5).take(for: Self.client) == .allowed, "limits counted alone ignore it")
    }

    /// Challenges pending through other instances fill the caps beside this instance's own.
    @Test func challengesPendingElsewhereCountInTheCaps() throws {
        let caps = PendingChallengeCaps(perClient: 3, total: 10)
        let now = Date()
        caps.countElsewhere(perClient: [Self.client: 2], total: 8)
        try caps.reserve([1], for: Self.client, expiresAt: now + 60, now: now)
        #expect(throws: PendingChallengeCaps.Refusal.client(Self.client, limit: 3)) {
            try caps.reserve([2], for: Self.client, expiresAt: now + 60, now: now)
        }
        try caps.reserve([3], for: ClientAddress(key: "198.51.100.1"), expiresAt: now + 60, now: now)
        #expect(throws: PendingChallengeCaps.Refusal.total(limit: 10)) {
            try caps.reserve([4], for: ClientAddress(key: "198.51.100.2"), expiresAt: now + 60, now: now)
        }
        #expect(caps.counts(for: Self.client) == (client: 3, total: 10))
        // The next count replaces this one.
        caps.countElsewhere(perClient: [:], total: 0)
        try caps.reserve([2], for: Self.client, expiresAt: now + 60, now: now)
        #expect(caps.counts(for: Self.client) == (client: 2, total: 3))
    }

    @Test(arguments: [
        // (peer, X-Forwarded-For fields, trusted proxies, client counted)
        ("198.51.100.1", ["192.0.2.1"], [String](), "198.51.100.1"),
        ("10.0.0.1", ["192.0.2.1"], ["10.0.0.1"], "192.0.2.1"),
        ("10.0.0.1", ["192.0.2.66, 192.0.2.1"], ["10.0.0.1"], "192.0.2.1"),
        ("10.0.0.1", ["192.0.2.66", "192.0.2.1, 10.0.0.2"], ["10.0.0.1", "10.0.0.2"], "192.0.2.1"),
        ("10.0.0.1", ["10.0.0.2"], ["10.0.0.1", "10.0.0.2"], "10.0.0.2"),
        ("10.0.0.1", [], ["10.0.0.1"], "10.0.0.1"),
        ("10.0.0.1", ["192.0.2.1, not-an-address"], ["10.0.0.1"], "10.0.0.1"),
        ("::ffff:10.0.0.1", ["2001:db8:1:2:3:4:5:6"], ["10.0.0.1"], "2001:db8:1:2::/64"),
        ("2001:db8::1", [], [], "2001:db8::/64"),
    ] as [(String, [String], [String], String)])
    func theClientIsTheRightMostAddressNoTrustedProxyAdded(peer: String, forwardedFor: [String], trusted: [String], expected: String) {
        #expect(ClientAddress.Resolver(trustedProxies: trusted).client(peer: peer, forwardedFor: forwardedFor).key == expected)
    }

    @Test func pendingChallengesAreCappedPerClientAndInTotal() throws {
        let caps = PendingChallengeCaps(perClient: 2, total: 3)
        let now = Date()
        let other = ClientAddress.Resolver(trustedProxies: []).client(peer: "203.0.113.9", forwardedFor: [])
        try caps.reserve([1], for: Self.client, expiresAt: now + 60, now: now)
        try caps.reserve([2], for: Self.client, expiresAt: now + 60, now: now)
        #expect(throws: PendingChallengeCaps.Refusal.client(Self.client, limit: 2)) {
            try caps.reserve([3], for: Self.client, expiresAt: now + 60, now: now)
        }
        try caps.reserve([4], for: other, expiresAt: now + 60, now: now)
        #expect(throws: PendingChallengeCaps.Refusal.total(limit: 3)) {
            try caps.reserve([5], for: other, expiresAt: now + 60, now: now)
        }
        // An answered challenge frees its place; an expired one is swept out when a cap is full.
        caps.release([1])
        try caps.reserve([6], for: Self.client, expiresAt: now + 60, now: now)
        #expect(caps.counts(for: Self.client) == (client: 2, total: 3))
        try caps.reserve([7], for: other, expiresAt: now + 120, now: now + 61)
        #expect(caps.counts(for: Self.client) == (client: 0, total: 1))
    }

    /// A full cap hands over what it counts, and forgets those the store no longer
    /// holds (answered through another instance); after a check that freed nothing, not again for a second.
    @Test func aFullCapForgetsChallengesTheStoreNoLongerHolds() throws {
        let caps = PendingChallengeCaps(perClient: 3, total: 0)
        let now = Date()
        for (hash, lifetime) in [([UInt8(1)], 90.0), ([2], 30), ([3], 60)] {
            try caps.reserve(hash, for: Self.client, expiresAt: now + lifetime, now: now)
        }
        let refusal = PendingChallengeCaps.Refusal.client(Self.client, limit: 3)
        #expect(throws: refusal) { try caps.reserve([4], for: Self.client, expiresAt: now + 60, now: now) }
        let checked = caps.challengesToCheck(for: refusal, now: now)
        #expect(Set(checked) == [[1], [2], [3]])
        #expect(caps.forget(checked, except: [[1], [3]], now: now) == 1)
        try caps.reserve([4], for: Self.client, expiresAt: now + 60, now: now)
        #expect(caps.counts(for: Self.client) == (client: 3, total: 3))
        #expect(caps.forget(caps.challengesToCheck(for: refusal, now: now), except: [[1], [3], [4]], now: now) == 0)
        #expect(caps.challengesToCheck(for: refusal, now: now + 0.5).isEmpty, "a second after a fruitless check")
        #expect(caps.challengesToCheck(for: refusal, now: now + 1).count == 3)
    }

    /// Printable ASCII takes a shorter way through the rules; it must end where the whole way does.
    @Test func plainASCIINamesGetWhatEveryRuleGives() throws {
        let printable = (0x20...0x7E).map { Character(Unicode.Scalar(UInt8($0))) }
        var names = printable.map { "a\($0)B" } + printable.map(String.init) + ["Alice", "BOB.smith@Example.com", "team/Alice", " a", "a ", "  "]
        names += [String(repeating: "x", count: 64), String(repeating: "x", count: 65), "../x", "a/./b", ".", "..", "x/..."]
        for name in names {
            func outcome(_ rule: () throws -> String) -> String {
                do { return "name \(try rule())" } catch { return "refused: \((error as? ServiceError)?.message ?? "\(error)")" }
            }
            #expect(outcome { try UserNames.username(name) } == outcome { try UserNames.folded(UserNames.spelling(name)) }, "\(name.debugDescription)")
        }
    }

    @Test func usernamesAreFoldedToOneAccount() async throws {
        #expect(try UserNames.username("ALICE") == "alice")
        #expect(try UserNames.username("U\u{308}ber") == "\u{FC}ber")
        #expect(try UserNames.spelling("U\u{308}ber") == "\u{DC}ber")
        let refusal = #expect(throws: ServiceError.self) { try UserNames.username("a\u{7}b") }
        #expect(refusal?.code == .invalidInput && refusal?.message == "username contains the control character U+0007")
        // Width-mapped: fullwidth letters and the ideographic space are the ordinary ones; halfwidth katakana the full ones.
        #expect(try UserNames.username("\u{FF21}\u{FF4C}\u{FF49}\u{FF43}\u{FF45}") == "alice")
        #expect(try UserNames.spelling("ann\u{3000}lee") == "ann lee")
        #expect(try UserNames.spelling("\u{FF76}") == "\u{30AB}")
        // Invisible characters are refused in usernames, and a name showing nothing is blank anywhere.
        for (name, problem) in [
            ("alice\u{2060}", "username contains the invisible character U+2060"), ("\u{FEFF}bob", "username contains the invisible character U+FEFF"),
            ("a\u{034F}b", "username contains the invisible character U+034F"), ("\u{3164}", "username is blank"),
            ("\u{2800}", "username is blank"), ("\u{200B}", "username is blank"),
        ] {
            let error = #expect(throws: ServiceError.self) { try UserNames.username(name) }
            #expect(error?.message == problem)
        }
        // A word mixing Latin, Greek and Cyrillic letters is refused; words in one script each pass.
        for (name, problem) in [
            ("p\u{430}ypal", "username mixes Latin and Cyrillic letters in one word (U+0430 is Cyrillic)"),
            ("\u{43E}lg\u{430}", "username mixes Cyrillic and Latin letters in one word (U+006C is Latin)"),
            ("ann.l\u{3BF}e", "username mixes Latin and Greek letters in one word (U+03BF is Greek)"),
            ("x\u{301}\u{3B1}", "username mixes Latin and Greek letters in one word (U+03B1 is Greek)"),
            ("ab\u{1D26}", "username mixes Latin and Greek letters in one word (U+1D26 is Greek)"),
        ] {
            let error = #expect(throws: ServiceError.self) { try UserNames.username(name) }
            #expect(error?.message.hasPrefix(problem) == true, "\(name): \(error?.message ?? "")")
        }
        for name in ["\u{438}\u{432}\u{430}\u{43D}@example.com", "\u{3B1}\u{3BB}\u{3AD}\u{3BE}\u{3B7}\u{3C2}-alex", "jos\u{E9}2\u{435}", "ma\u{1E7F}\u{4E2D}\u{6587}"] {
            #expect(throws: Never.self, "\(name)") { try UserNames.username(name) }
        }
        #expect(try UserNames.lookupNames("P\u{430}ypal") == ["p\u{430}ypal"], "an account kept before is still found")
        // Spaces only inside: `alice ` would look like `alice` (found by a walkthrough of the docs); earlier accounts are still found.
        for name in ["alice ", " alice", "alice\u{3000}", "\u{A0}bob"] {
            let error = #expect(throws: ServiceError.self) { try UserNames.username(name) }
            #expect(error?.message.hasPrefix("username starts or ends with a space (U+") == true, "\(name): \(error?.message ?? "")")
        }
        #expect(try UserNames.spelling("Ann Lee") == "Ann Lee")
        #expect(try UserNames.lookupNames("alice ") == ["alice "], "an account kept before is still found")
        for dots in [".", ".."] {
            let error = #expect(throws: ServiceError.self) { try UserNames.username(dots) }
            #expect(error?.message.hasPrefix("username may not have \"\(dots)\" as the whole name, which a URL path cannot carry") == true)
        }
        // Every name a route cannot address (found by an attacker: `../bob` was made, then no admin route reached it).
        for (name, segment) in [("../bob", ".."), ("alice/..", ".."), ("a/./b", "."), ("./x", "."), ("x/.", "."), ("a/../../b", "..")] {
            let error = #expect(throws: ServiceError.self) { try UserNames.username(name) }
            #expect(error?.message.hasPrefix("username may not have \"\(segment)\" between slashes") == true, "\(name): \(error?.message ?? "")")
        }
        for name in ["team/alice", "a.b/c", "x/...", "/x", "x//y", ".alice", "..bob", "a/.b"] {
            #expect(throws: Never.self, "\(name)") { try UserNames.username(name) }
        }
        // An account kept under the earlier rules is still found: today's name first, then the earlier one.
        #expect(try UserNames.lookupNames("Alice") == ["alice"])
        #expect(try UserNames.lookupNames("\u{FF21}lice") == ["alice", "\u{FF41}lice"])
        // Typed in width forms, the account kept so is found before its folded twin, which would hide it (a probe).
        let kept = ["alice": "new", "\u{FF41}\u{FF4C}\u{FF49}\u{FF43}\u{FF45}": "old"]
        let fullwidth = try await UserNames.find("\u{FF41}\u{FF4C}\u{FF49}\u{FF43}\u{FF45}") { kept[$0] }
        #expect(fullwidth.name == "alice" && fullwidth.account == "old")
        #expect(try await UserNames.find("alice") { kept[$0] }.account == "new")
        #expect(try await UserNames.find("\u{FF41}lice") { ["alice": "new"][$0] }.account == "new", "no twin: the folded name")
        #expect(try UserNames.lookupNames("Bob\u{200D}") == ["bob\u{200D}"])
        #expect(throws: ServiceError.self) { try UserNames.lookupNames("a\u{7}b") }
        #expect(try UserNames.displayName("👩\u{200D}💻 Ana ❤\u{FE0F}") == "👩\u{200D}💻 Ana ❤\u{FE0F}", "display names keep joiners and emoji selectors")
        #expect(throws: ServiceError.self) { try UserNames.displayName("\u{2060}\u{2800} ") }
    }
}
