#ifndef LATCHKEY_TEST_SUPPORT_H
#define LATCHKEY_TEST_SUPPORT_H

// Test-only OpenSSL helpers: key generation, certificate issuing and signing, so tests can build
// their own CAs and signed data at run time. Not linked into the library or the server.

#include <stddef.h>
#include <stdint.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

/// A fresh P-256 key pair, or NULL.
EVP_PKEY *lkt_generate_p256(void);

/// A fresh RSA key pair of `bits` bits, or NULL.
EVP_PKEY *lkt_generate_rsa(int bits);

/// A v3 certificate for `subject_key` named CN=`common_name`, signed with SHA-256 by `issuer_key`
/// under `issuer`'s subject name (self-signed when `issuer` is NULL), valid from `not_before` to
/// `not_after` (seconds since 1970). `is_ca` sets basic constraints CA:TRUE and keyCertSign.
X509 *lkt_issue_certificate(EVP_PKEY *subject_key, const char *common_name, X509 *issuer,
                            EVP_PKEY *issuer_key, int is_ca, long serial,
                            int64_t not_before, int64_t not_after);

/// The DER encoding of `certificate` into `buffer`; returns its length, or 0 when it does not fit.
size_t lkt_certificate_der(X509 *certificate, uint8_t *buffer, size_t buffer_length);

/// Signs `message` with `key` and `digest_name` ("SHA256", ...). RSA uses PKCS#1 v1.5, or PSS with a
/// salt as long as the digest when `pss` is set. EC signatures are written as JWS raw r||s, each
/// half `coordinate_length` bytes, or DER as WebAuthn carries them when `coordinate_length` is 0.
/// Returns the signature length, or 0 on error.
size_t lkt_sign(EVP_PKEY *key, const char *digest_name, int pss, size_t coordinate_length,
                const uint8_t *message, size_t message_length, uint8_t *signature, size_t signature_length);

/// An attestation certificate (CA:FALSE) for `subject_key`, issued by `issuer` with `issuer_key`,
/// subject C=US, O=Latchkey Tests, OU=`organizational_unit` (omitted when NULL), CN=`common_name`,
/// and the id-fido-gen-ce-aaguid extension when `aaguid` (16 bytes) is not NULL.
X509 *lkt_issue_attestation_certificate(EVP_PKEY *subject_key, const char *common_name,
                                        const char *organizational_unit, const uint8_t *aaguid,
                                        X509 *issuer, EVP_PKEY *issuer_key, long serial,
                                        int64_t not_before, int64_t not_after);

void lkt_free_key(EVP_PKEY *key);
void lkt_free_certificate(X509 *certificate);

#endif
