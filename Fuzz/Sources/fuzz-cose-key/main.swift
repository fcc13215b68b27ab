import FuzzSupport
import WebAuthn

// COSE key parsing and signature checking: the input is a length-prefixed COSE_Key followed by a
// signature, which a key that parses must judge (and nearly always refuse) over fixed bytes.
let decoder = CBORDecoder()
let message = Array("authenticator data and client data hash".utf8)

FuzzDriver.run { bytes in
    var fields = InputFields(bytes)
    let keyBytes = fields.field()
    let signature = fields.rest()
    guard let key = try? COSEKey(decoder.decode(keyBytes)) else { return }
    _ = try? key.verify(signature: signature, over: message)
    _ = try? key.verify(signature: signature, over: message, followedBy: message)
}
