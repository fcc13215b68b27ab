#ifndef LATCHKEY_TEST_SUPPORT_H
#define LATCHKEY_TEST_SUPPORT_H

// Test-only OpenSSL helpers: certificate issuing, so tests can build their own CAs and attestation
// chains at run time (keys and signatures come from CLatchkeyShims). Not linked into the server.

#include <stddef.h>
#include <stdint.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

/// A v3 certificate for `subject_key` named CN=`common_name`, signed with SHA-256 by `issuer_key`
/// under `issuer`'s subject name (self-signed when `issuer` is NULL), valid from `not_before` to
/// `not_after` (seconds since 1970). `is_ca` sets basic constraints CA:TRUE and keyCertSign.
X509 *lkt_issue_certificate(EVP_PKEY *subject_key, const char *common_name, X509 *issuer,
                            EVP_PKEY *issuer_key, int is_ca, long serial,
                            int64_t not_before, int64_t not_after);

/// The DER encoding of `certificate` into `buffer`; returns its length, or 0 when it does not fit.
size_t lkt_certificate_der(X509 *certificate, uint8_t *buffer, size_t buffer_length);

/// An attestation certificate (CA:FALSE) for `subject_key`, issued by `issuer` with `issuer_key`,
/// subject C=US, O=Latchkey Tests, OU=`organizational_unit` (omitted when NULL), CN=`common_name`,
/// and the id-fido-gen-ce-aaguid extension when `aaguid` (16 bytes) is not NULL.
X509 *lkt_issue_attestation_certificate(EVP_PKEY *subject_key, const char *common_name,
                                        const char *organizational_unit, const uint8_t *aaguid,
                                        X509 *issuer, EVP_PKEY *issuer_key, long serial,
                                        int64_t not_before, int64_t not_after);

void lkt_free_certificate(X509 *certificate);

#endif
