--
-- PostgreSQL database dump
--

\restrict qihlHPEhw18NOoB753gXZ16OC9VwIgzJ4lrsDfKLVwXccFIRHHtQbkMefl96GOQ

-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: admin_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.admin_keys (
    name text NOT NULL,
    key_hash bytea NOT NULL,
    created_at timestamp with time zone NOT NULL,
    last_used_at timestamp with time zone
);


--
-- Name: app_attest_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.app_attest_keys (
    key_id bytea NOT NULL,
    public_key bytea NOT NULL,
    app_id text NOT NULL,
    environment text NOT NULL,
    receipt bytea NOT NULL,
    counter bigint NOT NULL,
    created_at timestamp with time zone NOT NULL,
    last_used_at timestamp with time zone,
    accepted_counters bigint DEFAULT '-1'::integer NOT NULL
);


--
-- Name: credentials; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.credentials (
    id bytea NOT NULL,
    user_handle bytea NOT NULL,
    public_key bytea NOT NULL,
    algorithm bigint NOT NULL,
    sign_count bigint NOT NULL,
    transports text[] NOT NULL,
    aaguid bytea NOT NULL,
    attestation_format text NOT NULL,
    attestation_type text NOT NULL,
    backup_eligible boolean NOT NULL,
    backed_up boolean NOT NULL,
    resident_key boolean,
    user_verified boolean NOT NULL,
    created_at timestamp with time zone NOT NULL,
    last_used_at timestamp with time zone,
    attestation_trusted boolean NOT NULL,
    trust_path bytea[] NOT NULL,
    cred_protect smallint,
    sign_count_regressions bigint DEFAULT 0 NOT NULL,
    name bytea,
    registered bigint NOT NULL
);


--
-- Name: credentials_registered_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.credentials ALTER COLUMN registered ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.credentials_registered_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: device_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.device_keys (
    id bytea NOT NULL,
    user_handle bytea NOT NULL,
    public_key bytea NOT NULL,
    name bytea,
    created_at timestamp with time zone NOT NULL,
    last_used_at timestamp with time zone,
    registered bigint NOT NULL,
    app_attest_key_id bytea
);


--
-- Name: device_keys_registered_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.device_keys ALTER COLUMN registered ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.device_keys_registered_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: enrollment_tickets; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.enrollment_tickets (
    hash bytea NOT NULL,
    user_handle bytea NOT NULL,
    created_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    used_at timestamp with time zone,
    revoked_at timestamp with time zone
);


--
-- Name: latchkey_schema_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.latchkey_schema_migrations (
    version integer NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: pending_ceremonies; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.pending_ceremonies (
    challenge_hash bytea NOT NULL,
    kind text NOT NULL,
    user_handle bytea,
    username bytea,
    display_name bytea,
    user_verification text NOT NULL,
    binding_hash bytea,
    expires_at timestamp with time zone NOT NULL,
    enrollment_ticket_hash bytea,
    conditional boolean DEFAULT false NOT NULL,
    nonce bytea
);


--
-- Name: secrets; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.secrets (
    name text NOT NULL,
    value bytea NOT NULL
);


--
-- Name: security_events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.security_events (
    sequence bigint NOT NULL,
    id text NOT NULL,
    type text NOT NULL,
    occurred_at timestamp with time zone NOT NULL,
    user_handle bytea,
    username bytea,
    credential_id bytea,
    aaguid bytea,
    authenticator_name text,
    client_address text,
    user_agent text,
    request_id text,
    actor text NOT NULL,
    detail bytea
);


--
-- Name: security_events_sequence_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.security_events ALTER COLUMN sequence ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.security_events_sequence_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sessions (
    token_hash bytea NOT NULL,
    user_handle bytea NOT NULL,
    created_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    device_key_id bytea
);


--
-- Name: signing_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.signing_keys (
    generation bigint NOT NULL,
    key_id text NOT NULL,
    private_key bytea NOT NULL,
    created_at timestamp with time zone NOT NULL,
    signs_from timestamp with time zone NOT NULL
);


--
-- Name: store_health; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.store_health (
    id integer NOT NULL,
    checked_at timestamp with time zone NOT NULL,
    CONSTRAINT store_health_one_row CHECK ((id = 1))
);


--
-- Name: users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.users (
    handle bytea NOT NULL,
    username bytea NOT NULL,
    display_name bytea NOT NULL,
    created_at timestamp with time zone NOT NULL,
    external_id bytea,
    disabled boolean DEFAULT false NOT NULL
);


--
-- Name: webhook_deliveries; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhook_deliveries (
    id bigint NOT NULL,
    event_id text NOT NULL,
    receiver text NOT NULL,
    ordering_key bytea NOT NULL,
    state text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    created_at timestamp with time zone NOT NULL,
    next_attempt_at timestamp with time zone NOT NULL,
    retry_until timestamp with time zone NOT NULL,
    lease_owner text,
    lease_until timestamp with time zone,
    delivered_at timestamp with time zone,
    last_error text
);


--
-- Name: webhook_deliveries_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.webhook_deliveries ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.webhook_deliveries_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Data for Name: admin_keys; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.admin_keys (name, key_hash, created_at, last_used_at) FROM stdin;
release-backend	\\xe28215f79b88f006206f759dc5e4c75948fdd985e6e082d615b4b9d9be84bf18	2026-12-03 10:34:56.344657+00	2026-12-03 10:35:04.071749+00
\.


--
-- Data for Name: app_attest_keys; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.app_attest_keys (key_id, public_key, app_id, environment, receipt, counter, created_at, last_used_at, accepted_counters) FROM stdin;
\.


--
-- Data for Name: credentials; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.credentials (id, user_handle, public_key, algorithm, sign_count, transports, aaguid, attestation_format, attestation_type, backup_eligible, backed_up, resident_key, user_verified, created_at, last_used_at, attestation_trusted, trust_path, cred_protect, sign_count_regressions, name, registered) FROM stdin;
\\x6fd04f9f3ca5e885dc6e0fb7fe7be789	\\xdf4f30c2a66cba7539df4e0b9a63f6b2f08702688a77a602995c5870b00e86bdccc0ee05ddab1f42d7e38faa802d09df2da3a052b9e15b3c1b417a0d1c78d7af	\\xa50102032620012158202d6ef12b3c8e06da831dbf472ac85cb41d74e8a6a090e8607e3e6e02d96465402258206ebc0dd712c3b8aaba1b17de65e3b1ea68061129c5f6bf69a3b3e2adb2ce2b9d	-7	0	{internal}	\\x00000000000000000000000000000000	none	none	f	f	t	t	2026-12-03 10:35:03.999633+00	\N	f	{}	\N	0	\N	2
\\x00ce4ab058fe1ea4b08bee632760bc09	\\xb54cee08d497d4899673eaf4fcc10e38d987ef9ee1e477833f611b23ca2b69d7a04a8f69bac61a9ef5f4e4213d402890903c164ee3c9ef04e0d0a2be2dc0eb5a	\\xa5010203262001215820c79bdaecddcc04e81551ca26b5934d597a5b5f9a2dd9bac7125861cd5dd14319225820871d6a9615948b3613640653fbe0abc303f40469b8514f49b9b3355f81c826fb	-7	1	{internal}	\\x00000000000000000000000000000000	none	none	f	f	t	t	2026-12-03 10:35:03.933089+00	2026-12-03 10:35:04.053162+00	f	{}	\N	0	\N	1
\.


--
-- Data for Name: device_keys; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.device_keys (id, user_handle, public_key, name, created_at, last_used_at, registered, app_attest_key_id) FROM stdin;
\.


--
-- Data for Name: enrollment_tickets; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.enrollment_tickets (hash, user_handle, created_at, expires_at, used_at, revoked_at) FROM stdin;
\.


--
-- Data for Name: latchkey_schema_migrations; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.latchkey_schema_migrations (version, applied_at) FROM stdin;
1	2026-12-03 10:34:56.293035+00
2	2026-12-03 10:34:56.293035+00
3	2026-12-03 10:34:56.293035+00
4	2026-12-03 10:34:56.293035+00
5	2026-12-03 10:34:56.293035+00
6	2026-12-03 10:34:56.293035+00
7	2026-12-03 10:34:56.293035+00
8	2026-12-03 10:34:56.293035+00
\.


--
-- Data for Name: pending_ceremonies; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.pending_ceremonies (challenge_hash, kind, user_handle, username, display_name, user_verification, binding_hash, expires_at, enrollment_ticket_hash, conditional, nonce) FROM stdin;
\.


--
-- Data for Name: secrets; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.secrets (name, value) FROM stdin;
\.


--
-- Data for Name: security_events; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.security_events (sequence, id, type, occurred_at, user_handle, username, credential_id, aaguid, authenticator_name, client_address, user_agent, request_id, actor, detail) FROM stdin;
1	evt_WtQ7o4FTdy3rI8MN4hWgdg	admin_key.created	2026-12-03 10:34:56.344657+00	\N	\N	\N	\N	\N	\N	\N	\N	system:cli	\\x61646d696e206b6579202272656c656173652d6261636b656e6422
2	evt_iqHNQXuxLT7-za6gR8WJfA	signing_key.rotated	2026-12-03 10:34:56.504776+00	\N	\N	\N	\N	\N	\N	\N	\N	system:tokens	\\x67656e65726174696f6e20312c206b657920494420464b74324c386c536c644e745273755f4d2d305155576f5f774e7230654f5831776b576751456552527a4d2c207369676e732066726f6d20323032362d31322d30335431303a33343a35362e3530345a
3	evt_f4KPw8RinuXWV0VLNawQyQ	user.created	2026-12-03 10:35:03.933089+00	\\xb54cee08d497d4899673eaf4fcc10e38d987ef9ee1e477833f611b23ca2b69d7a04a8f69bac61a9ef5f4e4213d402890903c164ee3c9ef04e0d0a2be2dc0eb5a	\\x616c696365	\N	\N	\N	127.0.0.1	curl/7.88.1	6c90efe3f5c19a970cded837771a5abc	user	\N
4	evt_yGNSnXEF4I4vn1K5eJwv3Q	passkey.registered	2026-12-03 10:35:03.933089+00	\\xb54cee08d497d4899673eaf4fcc10e38d987ef9ee1e477833f611b23ca2b69d7a04a8f69bac61a9ef5f4e4213d402890903c164ee3c9ef04e0d0a2be2dc0eb5a	\\x616c696365	\\x00ce4ab058fe1ea4b08bee632760bc09	\\x00000000000000000000000000000000	Passkey	127.0.0.1	curl/7.88.1	6c90efe3f5c19a970cded837771a5abc	user	\N
5	evt__rlDmhILncZo2zB7Q-sj_g	user.created	2026-12-03 10:35:03.999633+00	\\xdf4f30c2a66cba7539df4e0b9a63f6b2f08702688a77a602995c5870b00e86bdccc0ee05ddab1f42d7e38faa802d09df2da3a052b9e15b3c1b417a0d1c78d7af	\\x626f62	\N	\N	\N	127.0.0.1	curl/7.88.1	9ac51e6dcce93bf629d19023a87818b6	user	\N
6	evt_AqHQZswGSvcZ0h6S0dhScA	passkey.registered	2026-12-03 10:35:03.999633+00	\\xdf4f30c2a66cba7539df4e0b9a63f6b2f08702688a77a602995c5870b00e86bdccc0ee05ddab1f42d7e38faa802d09df2da3a052b9e15b3c1b417a0d1c78d7af	\\x626f62	\\x6fd04f9f3ca5e885dc6e0fb7fe7be789	\\x00000000000000000000000000000000	Passkey	127.0.0.1	curl/7.88.1	9ac51e6dcce93bf629d19023a87818b6	user	\N
7	evt_TpyJx6E0BUR3K5CIetw6cQ	sign_in.succeeded	2026-12-03 10:35:04.053162+00	\\xb54cee08d497d4899673eaf4fcc10e38d987ef9ee1e477833f611b23ca2b69d7a04a8f69bac61a9ef5f4e4213d402890903c164ee3c9ef04e0d0a2be2dc0eb5a	\\x616c696365	\\x00ce4ab058fe1ea4b08bee632760bc09	\\x00000000000000000000000000000000	Passkey	127.0.0.1	curl/7.88.1	78cd7b3e5e0e44ceab31443d37947bf0	user	\N
8	evt_PGRYiv6HEV1ZWm2ld18MKg	user.created	2026-12-03 10:35:04.073691+00	\\x4ceccf261f22460f7cfc5117390f3413bf7445336233a437d65b98ea25337b19d432de9ec07ba8b9f3df25ace52733aea931908158b77a2cea055e73ad6e5c61	\\x6361726f6c	\N	\N	\N	127.0.0.1	curl/7.88.1	09162cdb1738c7599a9711fe76f51d8a	admin:release-backend	\N
\.


--
-- Data for Name: sessions; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.sessions (token_hash, user_handle, created_at, expires_at, device_key_id) FROM stdin;
\\x75707e124bb2f0e379bcabf5564de3b44bed0cbfaae8941e9c51be7bca75b9aa	\\xb54cee08d497d4899673eaf4fcc10e38d987ef9ee1e477833f611b23ca2b69d7a04a8f69bac61a9ef5f4e4213d402890903c164ee3c9ef04e0d0a2be2dc0eb5a	2026-12-03 10:35:03.933089+00	2026-12-04 10:35:03.933089+00	\N
\\x8bfcd3f73c2953fd104dc879e18ccdde50ae57636d5e164fc19476de0c0bfff4	\\xdf4f30c2a66cba7539df4e0b9a63f6b2f08702688a77a602995c5870b00e86bdccc0ee05ddab1f42d7e38faa802d09df2da3a052b9e15b3c1b417a0d1c78d7af	2026-12-03 10:35:03.999633+00	2026-12-04 10:35:03.999633+00	\N
\\x9a8dd6aa93b59fd7012a6e533b15648688eb67b04bc9b6c15a1ac3013667423b	\\xb54cee08d497d4899673eaf4fcc10e38d987ef9ee1e477833f611b23ca2b69d7a04a8f69bac61a9ef5f4e4213d402890903c164ee3c9ef04e0d0a2be2dc0eb5a	2026-12-03 10:35:04.053162+00	2026-12-04 10:35:04.053162+00	\N
\.


--
-- Data for Name: signing_keys; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.signing_keys (generation, key_id, private_key, created_at, signs_from) FROM stdin;
1	FKt2L8lSldNtRsu_M-0QUWo_wNr0eOX1wkWgQEeRRzM	\\x2d2d2d2d2d424547494e2050524956415445204b45592d2d2d2d2d0a4d494748416745414d424d4742797147534d34394167454743437147534d3439417745484247307761774942415151674b4333344273367166444a686a5653560a72776b4449506b65334a6f764243716c746f7779706d6e6169324b6852414e43414151664450765437513334623641747241524e4f4e3963432f344d664a43550a4f3357475a4f596b6e514c75326f55436d456b7676707a5731434a542b374434775472416d6439655771626a694d696474384e524d5965450a2d2d2d2d2d454e442050524956415445204b45592d2d2d2d2d0a	2026-12-03 10:34:56.504776+00	2026-12-03 10:34:56.504776+00
\.


--
-- Data for Name: store_health; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.store_health (id, checked_at) FROM stdin;
\.


--
-- Data for Name: users; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.users (handle, username, display_name, created_at, external_id, disabled) FROM stdin;
\\xb54cee08d497d4899673eaf4fcc10e38d987ef9ee1e477833f611b23ca2b69d7a04a8f69bac61a9ef5f4e4213d402890903c164ee3c9ef04e0d0a2be2dc0eb5a	\\x616c696365	\\x616c696365	2026-12-03 10:35:03.933089+00	\N	f
\\xdf4f30c2a66cba7539df4e0b9a63f6b2f08702688a77a602995c5870b00e86bdccc0ee05ddab1f42d7e38faa802d09df2da3a052b9e15b3c1b417a0d1c78d7af	\\x626f62	\\x626f62	2026-12-03 10:35:03.999633+00	\N	f
\\x4ceccf261f22460f7cfc5117390f3413bf7445336233a437d65b98ea25337b19d432de9ec07ba8b9f3df25ace52733aea931908158b77a2cea055e73ad6e5c61	\\x6361726f6c	\\x6361726f6c	2026-12-03 10:35:04.073688+00	\\x63726d2d3432	f
\.


--
-- Data for Name: webhook_deliveries; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.webhook_deliveries (id, event_id, receiver, ordering_key, state, attempts, created_at, next_attempt_at, retry_until, lease_owner, lease_until, delivered_at, last_error) FROM stdin;
\.


--
-- Name: credentials_registered_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.credentials_registered_seq', 2, true);


--
-- Name: device_keys_registered_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.device_keys_registered_seq', 1, false);


--
-- Name: security_events_sequence_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.security_events_sequence_seq', 8, true);


--
-- Name: webhook_deliveries_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.webhook_deliveries_id_seq', 1, false);


--
-- Name: admin_keys admin_keys_key_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.admin_keys
    ADD CONSTRAINT admin_keys_key_hash_key UNIQUE (key_hash);


--
-- Name: admin_keys admin_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.admin_keys
    ADD CONSTRAINT admin_keys_pkey PRIMARY KEY (name);


--
-- Name: app_attest_keys app_attest_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.app_attest_keys
    ADD CONSTRAINT app_attest_keys_pkey PRIMARY KEY (key_id);


--
-- Name: credentials credentials_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.credentials
    ADD CONSTRAINT credentials_pkey PRIMARY KEY (id);


--
-- Name: device_keys device_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.device_keys
    ADD CONSTRAINT device_keys_pkey PRIMARY KEY (id);


--
-- Name: enrollment_tickets enrollment_tickets_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.enrollment_tickets
    ADD CONSTRAINT enrollment_tickets_pkey PRIMARY KEY (hash);


--
-- Name: latchkey_schema_migrations latchkey_schema_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.latchkey_schema_migrations
    ADD CONSTRAINT latchkey_schema_migrations_pkey PRIMARY KEY (version);


--
-- Name: pending_ceremonies pending_ceremonies_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pending_ceremonies
    ADD CONSTRAINT pending_ceremonies_pkey PRIMARY KEY (challenge_hash);


--
-- Name: secrets secrets_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.secrets
    ADD CONSTRAINT secrets_pkey PRIMARY KEY (name);


--
-- Name: security_events security_events_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.security_events
    ADD CONSTRAINT security_events_id_key UNIQUE (id);


--
-- Name: security_events security_events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.security_events
    ADD CONSTRAINT security_events_pkey PRIMARY KEY (sequence);


--
-- Name: sessions sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_pkey PRIMARY KEY (token_hash);


--
-- Name: signing_keys signing_keys_key_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.signing_keys
    ADD CONSTRAINT signing_keys_key_id_key UNIQUE (key_id);


--
-- Name: signing_keys signing_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.signing_keys
    ADD CONSTRAINT signing_keys_pkey PRIMARY KEY (generation);


--
-- Name: store_health store_health_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.store_health
    ADD CONSTRAINT store_health_pkey PRIMARY KEY (id);


--
-- Name: users users_external_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_external_id_key UNIQUE (external_id);


--
-- Name: users users_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (handle);


--
-- Name: users users_username_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_username_key UNIQUE (username);


--
-- Name: webhook_deliveries webhook_deliveries_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id);


--
-- Name: credentials_by_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX credentials_by_user ON public.credentials USING btree (user_handle, created_at, registered);


--
-- Name: device_keys_by_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX device_keys_by_user ON public.device_keys USING btree (user_handle);


--
-- Name: enrollment_tickets_by_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX enrollment_tickets_by_expiry ON public.enrollment_tickets USING btree (expires_at);


--
-- Name: enrollment_tickets_by_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX enrollment_tickets_by_user ON public.enrollment_tickets USING btree (user_handle);


--
-- Name: pending_ceremonies_by_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX pending_ceremonies_by_expiry ON public.pending_ceremonies USING btree (expires_at);


--
-- Name: pending_ceremonies_by_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX pending_ceremonies_by_user ON public.pending_ceremonies USING btree (user_handle) WHERE (user_handle IS NOT NULL);


--
-- Name: security_events_by_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX security_events_by_user ON public.security_events USING btree (user_handle, sequence) WHERE (user_handle IS NOT NULL);


--
-- Name: sessions_by_device_key; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sessions_by_device_key ON public.sessions USING btree (device_key_id) WHERE (device_key_id IS NOT NULL);


--
-- Name: sessions_by_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sessions_by_expiry ON public.sessions USING btree (expires_at);


--
-- Name: sessions_by_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sessions_by_user ON public.sessions USING btree (user_handle);


--
-- Name: webhook_deliveries_by_creation; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_deliveries_by_creation ON public.webhook_deliveries USING btree (created_at);


--
-- Name: webhook_deliveries_by_state; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_deliveries_by_state ON public.webhook_deliveries USING btree (state, id);


--
-- Name: webhook_deliveries_pending; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_deliveries_pending ON public.webhook_deliveries USING btree (receiver, ordering_key, id) WHERE (state = 'pending'::text);


--
-- Name: credentials credentials_user_handle_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.credentials
    ADD CONSTRAINT credentials_user_handle_fkey FOREIGN KEY (user_handle) REFERENCES public.users(handle) ON DELETE CASCADE;


--
-- Name: device_keys device_keys_user_handle_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.device_keys
    ADD CONSTRAINT device_keys_user_handle_fkey FOREIGN KEY (user_handle) REFERENCES public.users(handle) ON DELETE CASCADE;


--
-- Name: enrollment_tickets enrollment_tickets_user_handle_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.enrollment_tickets
    ADD CONSTRAINT enrollment_tickets_user_handle_fkey FOREIGN KEY (user_handle) REFERENCES public.users(handle) ON DELETE CASCADE;


--
-- Name: sessions sessions_user_handle_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_user_handle_fkey FOREIGN KEY (user_handle) REFERENCES public.users(handle) ON DELETE CASCADE;


--
-- PostgreSQL database dump complete
--

\unrestrict qihlHPEhw18NOoB753gXZ16OC9VwIgzJ4lrsDfKLVwXccFIRHHtQbkMefl96GOQ

