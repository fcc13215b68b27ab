import FuzzSupport
import WebAuthn

// Full assertion verification (§7.2) against the vectors' relying party, with the stored key and
// counter taken from the input; see AssertionInput for the input layout.
FuzzDriver.run { bytes in
    let input = AssertionInput(decoding: bytes)
    let verifier = SignInVerifier(relyingParty: input.relyingParty)
    _ = try? verifier.verify(input.response, expecting: input.expectation)
}
