"""The token formats `kernel.secrets` knows by shape: one `(kind, pattern)` per format, our own patterns.

The formats were learned from public secret-scanner rule lists (gitleaks, detect-secrets) and the
vendors' documented prefixes; each pattern here is written for this detector, which tries them only
where a long run of token characters starts (see `kernel/secrets.py`), so a pattern needs no leading
word boundary: the caller only tries it at a position whose previous character is not alphanumeric.
`WEAK` formats (a short or common prefix) must also look random (letters and digits mixed).
"""

from __future__ import annotations

__all__ = ["FORMATS", "GENERATED", "WEAK"]

_END = r"(?![A-Za-z0-9_-])"

FORMATS: tuple[tuple[str, str], ...] = (
    # cloud providers
    ("aws_access_key_id", r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Z0-9])"),
    ("aws_mws_key", r"amzn\.mws\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
    ("google_api_key", r"AIza[0-9A-Za-z_-]{35}" + _END),
    ("google_oauth_secret", r"GOCSPX-[A-Za-z0-9_-]{28}" + _END),
    ("google_oauth_token", r"ya29\.[A-Za-z0-9_-]{30,}"),
    ("azure_ad_client_secret", r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])"),
    ("alibaba_access_key_id", r"LTAI[A-Za-z0-9]{20}(?![A-Za-z0-9])"),
    ("digitalocean_token", r"do[opr]_v1_[a-f0-9]{64}(?![a-f0-9])"),
    ("heroku_api_key", r"HRKU-(?:AA)?[A-Za-z0-9_-]{58,60}" + _END),
    ("fly_io_token", r"(?:fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3}|fo1_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-]))"),
    # Cloudflare's account and user API tokens and API keys: 40 characters and an 8-hex checksum
    ("cloudflare_api_token", r"cf(?:at|ut|k)_[A-Za-z0-9]{40}[a-f0-9]{8}(?![A-Za-z0-9])"),
    ("aws_appsync_key", r"da2-[a-z0-9]{26}(?![a-z0-9])"),
    ("cloudflare_origin_ca_key", r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}"),
    # source control and packages
    ("github_token", r"gh[pousr]_[A-Za-z0-9]{36,255}(?![A-Za-z0-9])"),
    # an app installation token of the newer shape: `ghs_`, the installation's id, `_`, then a JWT
    ("github_token", r"ghs_\d{1,12}_eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
    # the fine-grained token, and the shorter shape it had in its beta
    ("github_fine_grained_token", r"github_pat_(?:[A-Za-z0-9]{22}_[A-Za-z0-9]{59}|[A-Za-z0-9_]{30,80})(?![A-Za-z0-9])"),
    ("gitlab_token", r"gl(?:pat|ptt|dt|rt|cbt|imt|agent|oas|ft|soat|ffct)-[A-Za-z0-9_-]{20,}"),
    ("gitlab_runner_token", r"GR1348941[A-Za-z0-9_-]{20,}"),
    ("bitbucket_app_password", r"ATBB[A-Za-z0-9_=.-]{24,}"),
    ("atlassian_api_token", r"ATATT3[A-Za-z0-9_=\-]{150,}"),
    ("npm_token", r"npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])"),
    # macaroons of pypi.org and of test.pypi.org
    ("pypi_token", r"pypi-AgE(?:IcHlwaS5vcmc|NdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{50,}"),
    ("rubygems_token", r"rubygems_[a-f0-9]{48}(?![a-f0-9])"),
    ("clojars_token", r"CLOJARS_[a-z0-9]{60}(?![a-z0-9])"),
    ("docker_hub_token", r"dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}"),
    ("artifactory_token", r"(?:AKCp[A-Za-z0-9]{69}|cmVmdGtu[A-Za-z0-9]{56})(?![A-Za-z0-9])"),
    ("sonarqube_token", r"sq[pua]_[a-f0-9]{40}(?![a-f0-9])"),
    ("terraform_cloud_token", r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}"),
    # `s.`/`b.` are the tokens of Vault before 1.10; only their long protobuf form (`CAES...`) is distinctive
    ("vault_token", r"(?:hv[sbr]\.[A-Za-z0-9_-]{24,}|[sb]\.CAES[A-Za-z0-9_-]{60,})"),
    ("crates_io_token", r"cio[A-Za-z0-9]{32}(?![A-Za-z0-9])"),
    # TrueNAS: the key's numeric id, `-`, then 64 characters of both cases
    ("truenas_api_key", r"\d{1,4}-(?=[A-Za-z0-9]{0,63}[A-Z])(?=[A-Za-z0-9]{0,63}[a-z])[A-Za-z0-9]{64}(?![A-Za-z0-9])"),
    ("tailscale_key", r"tskey-(?:auth|api|client|scim|webhook)-[A-Za-z0-9]{6,}-[A-Za-z0-9]{16,}(?![A-Za-z0-9])"),
    # Vercel's personal, integration, app, refresh and API-key tokens
    ("vercel_token", r"vc[pikar]_[A-Za-z0-9]{24,64}(?![A-Za-z0-9])"),
    ("buildkite_token", r"bkua_[a-z0-9]{40}(?![a-z0-9])"),
    ("clickup_token", r"pk_\d{7,8}_[0-9A-Z]{32}(?![0-9A-Za-z])"),
    # ElevenLabs: `sk_` and 48 hex digits
    ("elevenlabs_key", r"sk_[a-f0-9]{48}(?![A-Za-z0-9])"),
    # Dropbox's short-lived access token
    ("dropbox_token", r"sl\.(?:u\.)?[A-Za-z0-9_-]{130,}"),
    ("pulumi_token", r"pul-[a-f0-9]{40}(?![a-f0-9])"),
    ("netlify_token", r"nfp_[A-Za-z0-9]{36}(?![A-Za-z0-9])"),
    ("octopus_deploy_key", r"API-[A-Z0-9]{26}(?![A-Z0-9])"),
    ("age_secret_key", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    ("onepassword_token", r"ops_eyJ[A-Za-z0-9+/]{100,}={0,3}"),
    # a service token may name its environment: `dp.st.dev.<key>`
    ("doppler_token", r"dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{1,32}\.)?[A-Za-z0-9]{40,44}(?![A-Za-z0-9])"),
    ("dependency_track_key", r"odt_[A-Za-z0-9]{32,40}(?![A-Za-z0-9])"),
    ("prefect_token", r"pnu_[A-Za-z0-9]{36}(?![A-Za-z0-9])"),
    ("readme_token", r"rdme_[a-z0-9]{70}(?![a-z0-9])"),
    ("supabase_token", r"sbp_[a-f0-9]{40}(?![a-f0-9])"),
    # model providers
    ("anthropic_api_key", r"sk-ant-(?:api|admin|oat|sid)\d{2}-[A-Za-z0-9_-]{20,}"),
    ("openai_api_key", r"sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}"),
    ("huggingface_token", r"(?:hf_[A-Za-z0-9]{34,37}|api_org_[A-Za-z0-9]{34})(?![A-Za-z0-9])"),
    ("groq_api_key", r"gsk_[A-Za-z0-9]{48,}(?![A-Za-z0-9])"),
    ("replicate_token", r"r8_[A-Za-z0-9]{37}(?![A-Za-z0-9])"),
    ("perplexity_api_key", r"pplx-[A-Za-z0-9]{48}(?![A-Za-z0-9])"),
    ("xai_api_key", r"xai-[A-Za-z0-9]{70,90}(?![A-Za-z0-9])"),
    ("nvidia_api_key", r"nvapi-[A-Za-z0-9_-]{64}" + _END),
    ("langsmith_api_key", r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}(?![a-f0-9])"),
    ("tavily_api_key", r"tvly-(?:dev-|prod-)?[A-Za-z0-9]{32}(?![A-Za-z0-9])"),
    ("pinecone_api_key", r"pcsk_[A-Za-z0-9_]{50,}"),
    # messaging, email, payments, SaaS
    ("slack_token", r"(?:xox[abposre]-(?:\d+-)+[A-Za-z0-9]{10,}(?:-[A-Za-z0-9]+)*|xoxe\.xox[bp]-\d-[A-Za-z0-9]{100,})"),
    ("slack_app_token", r"xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+"),
    ("stripe_key", r"(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{16,}(?![A-Za-z0-9])"),
    ("stripe_webhook_secret", r"whsec_[A-Za-z0-9]{32,}(?![A-Za-z0-9])"),
    # Braintree (PayPal): `access_token$<environment>$<merchant id>$<key>`
    ("braintree_token", r"access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-z]{32}(?![0-9a-z])"),
    ("square_token", r"(?:sq0(?:atp|idp|idk|csp)-[A-Za-z0-9_-]{20,64}|EAAA[A-Za-z0-9_-]{60})" + _END),
    ("twilio_api_key", r"SK[0-9a-fA-F]{32}(?![0-9a-fA-F])"),
    ("twilio_account_sid", r"AC[0-9a-f]{32}(?![0-9a-fA-F])"),
    ("sendgrid_api_key", r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}" + _END),
    ("mailgun_api_key", r"key-[0-9a-z]{32}(?![0-9A-Za-z])"),
    ("mailchimp_api_key", r"[0-9a-f]{32}-us\d{1,2}(?![0-9A-Za-z])"),
    ("brevo_api_key", r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    ("postman_api_key", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
    ("newrelic_key", r"(?:NR(?:AK|AA|II|JS)-[A-Za-z0-9]{27}(?![A-Za-z0-9])|NRIQ-[A-Za-z0-9_-]{32}" + _END + ")"),
    # a license key (40 characters ending in `NRAL`) and a mobile app token (`...-NRMA`): the suffix is the vendor's
    ("newrelic_key", r"(?:[A-Za-z0-9]{36}NRAL|[A-Za-z0-9]{40,42}-NRMA)(?![A-Za-z0-9])"),
    # Azure DevOps personal access tokens: 84 characters with `AZDO` at the 77th
    ("azure_devops_token", r"[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}(?![A-Za-z0-9])"),
    ("pganalyze_key", r"pga[rw]_[A-Za-z0-9]{24,40}(?![A-Za-z0-9])"),
    ("rootly_key", r"rootly_[a-f0-9]{64}(?![a-f0-9])"),
    ("photoroom_key", r"(?:sandbox_)?sk_pr_[A-Za-z0-9]{1,40}_[a-f0-9]{40}(?![a-f0-9])"),
    ("endorlabs_key", r"endr\+[A-Za-z0-9]{16}(?![A-Za-z0-9])"),
    # LaunchDarkly: `api-`, `sdk-` or `mob-`, then a UUID's shape
    ("launchdarkly_key", r"(?:api|sdk|mob)-[a-z0-9]{8}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{12}(?![a-z0-9])"),
    # hex, and the longer app secret of base62 since 2024
    ("shopify_token", r"shp(?:at|ca|pa|ss)_(?:[a-fA-F0-9]{32}|[A-Za-z0-9]{32,40})(?![A-Za-z0-9])"),
    # Onfido: `api_live` or `api_sandbox`, an optional region, then two dotted parts
    ("onfido_token", r"api_(?:live|sandbox)(?:_[a-z]{2})?\.[A-Za-z0-9_-]{11}\.[A-Za-z0-9_-]{32}" + _END),
    ("databricks_token", r"dapi[a-f0-9]{32}(?:-\d)?(?![a-f0-9])"),
    ("planetscale_token", r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,64}"),
    ("linear_api_key", r"lin_api_[A-Za-z0-9]{40}(?![A-Za-z0-9])"),
    ("notion_token", r"(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{46})(?![A-Za-z0-9])"),
    ("grafana_token", r"(?:glc_[A-Za-z0-9+/]{32,400}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})"),
    ("figma_token", r"figd_[A-Za-z0-9_-]{40,}"),
    ("sentry_token", r"sntry[su]_[A-Za-z0-9+/=_]{40,}"),
    ("contentful_token", r"CFPAT-[A-Za-z0-9_-]{43}" + _END),
    ("typeform_token", r"tfp_[A-Za-z0-9_.=-]{59}"),
    ("dynatrace_token", r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}"),
    ("easypost_key", r"EZ[AT]K[A-Za-z0-9]{54}(?![A-Za-z0-9])"),
    ("flutterwave_key", r"FLW(?:SEC|PUB)K_TEST-[a-h0-9]{32}-X"),
    ("frameio_token", r"fio-u-[A-Za-z0-9_=-]{64}"),
    ("shippo_token", r"shippo_(?:live|test)_[a-f0-9]{40}(?![a-f0-9])"),
    ("duffel_token", r"duffel_(?:test|live)_[A-Za-z0-9_=-]{43}"),
    ("adafruit_key", r"aio_[A-Za-z0-9]{28}(?![A-Za-z0-9])"),
    ("airtable_token", r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}(?![a-f0-9])"),
    ("mapbox_token", r"[sp]k\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}"),
    ("facebook_token", r"EAA[A-Za-z0-9]{100,}"),
    # the id may be glued to the `bot` of an API path (`/bot123456:AA...`, `botbot123456:AA...`)
    ("telegram_bot_token", r"(?:bot)*\d{5,16}:A[A-Za-z0-9_-]{33,34}" + _END),
    ("facebook_app_token", r"\d{15,16}\|[A-Za-z0-9_-]{27}" + _END),
    ("openshift_token", r"sha256~[A-Za-z0-9_-]{43}" + _END),
    ("sourcegraph_token", r"sgp_(?:[A-Fa-f0-9]{16}_|local_)?[A-Fa-f0-9]{40}(?![A-Fa-f0-9])"),
    (
        "onepassword_secret_key",
        r"A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}",
    ),
    ("adobe_client_secret", r"p8e-[A-Za-z0-9]{32}(?![A-Za-z0-9])"),
    ("intra42_client_secret", r"s-s4t2(?:ud|af)-[a-f0-9]{64}(?![a-f0-9])"),
    # the user id's base64 may follow a character or two of the same run (`ATMyOTQ4...`)
    (
        "discord_bot_token",
        r"[A-Za-z0-9_-]{0,2}[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}" + _END,
    ),
    # a stream key: the channel's numeric id, then the key
    ("twitch_stream_key", r"live_\d{5,12}_[A-Za-z0-9]{30}(?![A-Za-z0-9])"),
    # a PEM private key wrapped in base64 (an environment variable, a Kubernetes secret): `-----BEGIN `, a
    # label, then `PRIVATE KEY` in any of its three base64 alignments; a certificate's block stays
    (
        "private_key_base64",
        r"LS0tLS1CRUdJTi[A-Za-z0-9+/]{0,48}?(?:UFJJVkFURSBLRV|SSVZBVEUgS0VZ|QUklWQVRFIEtFW)[A-Za-z0-9+/]{20,}={0,2}",
    ),
    # the signature may be missing (an unsigned token, or one cut short): header and claims are enough
    # claims that are not JSON (encrypted, or a custom encoding) after a header that names its `alg` or `typ`
    (
        "jwt",
        r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]*)?"
        r"|eyJ(?:hbGci|0eXAi)[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}",
    ),
    # any vendor's prefix (a lowercase word, up to two more short parts: `k2sk_v1_`, `acme_live_`), one part
    # marking a key or its environment, before a body a generator drew (see `GENERATED`): the shape new
    # vendors' tokens take; last, so a known vendor's format is tried first
    # (possessive: a run that fails is given up at once, never tried again at every shorter body)
    ("prefixed_token", r"[a-z][a-z0-9]{1,7}+_(?:[a-z0-9]{1,8}+_){0,2}[A-Za-z0-9]{20,80}+(?![A-Za-z0-9_-])"),
)

# Formats whose prefix is short or shaped like ordinary text: a match must also look random.
WEAK = frozenset(
    {
        "discord_bot_token",
        "mailchimp_api_key",
        "terraform_cloud_token",
        "azure_ad_client_secret",
        "openai_api_key",
        "octopus_deploy_key",
        "twilio_api_key",
        "facebook_app_token",
        "crates_io_token",
        "truenas_api_key",
        "mailgun_api_key",
        "newrelic_key",
        "azure_devops_token",
        "launchdarkly_key",
        "aws_appsync_key",
        "buildkite_token",
        "elevenlabs_key",
        "vercel_token",
    }
)

# Formats known by no vendor's prefix, only by a prefix's shape (`kernel.secret_shapes.drawn_body`): a part
# of the prefix marks a key, and the body after the last `_` looks drawn by a generator, not camelCase words.
GENERATED = frozenset({"prefixed_token"})
