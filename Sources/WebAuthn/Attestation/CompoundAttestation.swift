/// The `compound` format (WebAuthn §8.9): two or more self-contained statements of other formats
/// over the same authenticator data and client data hash.
///
/// §8.9 leaves two choices to relying party policy; Latchkey decides them as follows.
/// - Every member must verify (§8.9 step 1 "decide the appropriate result based on RP policy"):
///   a member that fails means the attestation object carries a forged or broken statement, and
///   Latchkey does not register on the strength of the others. The member's error is rethrown
///   with its code, its message prefixed by the member's index and format.
/// - The result (§8.9 step 2 "any combination of outputs") is the strongest member result: the
///   first member with a certificate trust path (basic, attCA, anonCA), else the first self, else
///   none. ``AttestationTrust`` then judges that one path against the trust anchors. A later member
///   whose chain would verify while the chosen one does not is not consulted (a known limit of
///   returning one result).
public struct CompoundAttestation: AttestationFormat {
    public let identifier = "compound"
    /// The formats members may use; a member whose fmt is `compound` is refused regardless.
    public let members: AttestationFormats

    public init(members: AttestationFormats) {
        self.members = members
    }

    public func verify(_ input: AttestationInput) throws -> AttestationResult {
        let statement = input.statement
        // §8.9 syntax: attStmt is an array of at least two non-compound statements.
        guard let items = statement.arrayItems else {
            throw WebAuthnError(.invalidAttestationStatement, "compound attStmt is \(statement.kindName), not an array")
        }
        guard items.count >= 2 else {
            throw WebAuthnError(.invalidAttestationStatement, "compound attStmt holds \(items.count) statements; at least 2 are required")
        }
        var results: [AttestationResult] = []
        for (index, item) in items.enumerated() {
            guard item.mapEntries != nil else {
                throw WebAuthnError(.invalidAttestationStatement, "compound attStmt[\(index)] is \(item.kindName), not a map")
            }
            guard let fmtValue = item[textKey: "fmt"], let format = fmtValue.textString else {
                throw WebAuthnError(.invalidAttestationStatement, "compound attStmt[\(index)] has no text fmt")
            }
            guard format != identifier else {
                throw WebAuthnError(.invalidAttestationStatement, "compound attStmt[\(index)] is itself a compound statement; nesting is not allowed")
            }
            guard let memberStatement = item[textKey: "attStmt"] else {
                throw WebAuthnError(.invalidAttestationStatement, "compound attStmt[\(index)] (\(format)) has no attStmt")
            }
            guard memberStatement.mapEntries != nil else {
                throw WebAuthnError(.invalidAttestationStatement, "compound attStmt[\(index)].attStmt (\(format)) is \(memberStatement.kindName), not a map")
            }
            // §8.9 step 1: run the member format's verification procedure with the same
            // authenticatorData and clientDataHash.
            let memberInput = AttestationInput(
                statement: memberStatement, authenticatorData: input.authenticatorData,
                clientDataHash: input.clientDataHash, credentialKey: input.credentialKey,
                verificationTime: input.verificationTime, allowSHA1: input.allowSHA1)
            do {
                var result = try members.verify(format: format, memberInput)
                result.format = result.format ?? format
                results.append(result)
            } catch let error as WebAuthnError {
                throw WebAuthnError(error.code, "compound attStmt[\(index)] (\(format)): \(error.message)")
            }
        }
        // §8.9 step 2: every member verified; return the strongest one.
        func strength(_ type: AttestationType) -> Int {
            switch type {
            case .basic, .attCA, .anonCA: return 2
            case .self: return 1
            case .none: return 0
            }
        }
        var strongest = results[0]
        for result in results.dropFirst() where strength(result.type) > strength(strongest.type) {
            strongest = result
        }
        return strongest
    }
}
