"""A labelled corpus for the secret detector: secrets in prose, commands, JSON and CRLF files, and lookalikes.

Every secret is generated here at import (a seeded random body after the format's documented prefix),
so the repository holds no credential-shaped literal for a scanner to flag. `POSITIVE` lines carry
the secrets that must be gone after `redact`; `NEGATIVE` lines hold none and must come back unchanged.
"""

from __future__ import annotations

import base64
import random
import string

__all__ = ["FORMAT_SAMPLES", "NEGATIVE", "POSITIVE"]

_rnd = random.Random(14)
_ALNUM = string.ascii_letters + string.digits
_HEX = "0123456789abcdef"
_UPNUM = string.ascii_uppercase + string.digits
_URLSAFE = _ALNUM + "_-"
_B64 = _ALNUM + "+/"


def _r(n: int, alphabet: str = _ALNUM) -> str:
    """n random characters, with at least one upper, one lower and one digit where the alphabet has them."""
    while True:
        out = "".join(_rnd.choice(alphabet) for _ in range(n))
        kinds = [
            any(c in out for c in group) for group in (string.ascii_uppercase, string.ascii_lowercase, string.digits)
        ]
        wanted = [
            any(c in alphabet for c in group)
            for group in (string.ascii_uppercase, string.ascii_lowercase, string.digits)
        ]
        if kinds == wanted or n < 4:
            return out


def _jwt() -> str:
    header = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    body = base64.urlsafe_b64encode(b'{"sub":"1234567890","name":"ci","iat":1795104298}').decode().rstrip("=")
    return f"{header}.{body}.{_r(43, _URLSAFE)}"


# One sample secret per token format, built from the format's prefix and a random body.
FORMAT_SAMPLES: dict[str, str] = {
    "aws_access_key_id": "AKIA" + _r(16, _UPNUM),
    "aws_access_key_id/sts": "ASIA" + _r(16, _UPNUM),
    "aws_mws_key": f"amzn.mws.{_r(8, _HEX)}-{_r(4, _HEX)}-{_r(4, _HEX)}-{_r(4, _HEX)}-{_r(12, _HEX)}",
    "google_api_key": "AIza" + _r(35, _URLSAFE),
    "google_oauth_secret": "GOCSPX-" + _r(28, _URLSAFE),
    "google_oauth_token": "ya29." + _r(60, _URLSAFE),
    "azure_ad_client_secret": _r(3) + "8Q~" + _r(34, _ALNUM + "_~.-"),
    "alibaba_access_key_id": "LTAI" + _r(20),
    "digitalocean_token": "dop_v1_" + _r(64, _HEX),
    "heroku_api_key": "HRKU-AA" + _r(58, _URLSAFE),
    "fly_io_token": "fm2_" + _r(120, _B64),
    "fly_io_token/org": "fo1_" + _r(43, _URLSAFE),
    "cloudflare_origin_ca_key": f"v1.0-{_r(24, _HEX)}-{_r(146, _HEX)}",
    "github_token": "ghp_" + _r(36),
    "github_token/oauth": "gho_" + _r(36),
    "github_token/server": "ghs_" + _r(36),
    "github_fine_grained_token": f"github_pat_{_r(22)}_{_r(59)}",
    "gitlab_token": "glpat-" + _r(20, _URLSAFE),
    "gitlab_token/trigger": "glptt-" + _r(40, _HEX),
    "gitlab_runner_token": "GR1348941" + _r(20, _URLSAFE),
    "bitbucket_app_password": "ATBB" + _r(32),
    "atlassian_api_token": "ATATT3" + _r(186, _URLSAFE),
    "npm_token": "npm_" + _r(36),
    "pypi_token": "pypi-AgEIcHlwaS5vcmc" + _r(70, _URLSAFE),
    "pypi_token/test": "pypi-AgENdGVzdC5weXBpLm9yZw" + _r(70, _URLSAFE),
    "rubygems_token": "rubygems_" + _r(48, _HEX),
    "clojars_token": "CLOJARS_" + _r(60, string.ascii_lowercase + string.digits),
    "docker_hub_token": "dckr_pat_" + _r(27, _URLSAFE),
    "artifactory_token": "AKCp" + _r(69),
    "sonarqube_token": "squ_" + _r(40, _HEX),
    "terraform_cloud_token": f"{_r(14)}.atlasv1.{_r(64, _URLSAFE)}",
    "vault_token": "hvs." + _r(24, _URLSAFE),
    "pulumi_token": "pul-" + _r(40, _HEX),
    "netlify_token": "nfp_" + _r(36),
    "octopus_deploy_key": "API-" + _r(26, _UPNUM),
    "age_secret_key": "AGE-SECRET-KEY-1" + "".join(_rnd.choice("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L") for _ in range(58)),
    "onepassword_token": "ops_eyJ" + _r(250, _B64),
    "doppler_token": "dp.pt." + _r(43),
    "prefect_token": "pnu_" + _r(36),
    "readme_token": "rdme_" + _r(70, string.ascii_lowercase + string.digits),
    "supabase_token": "sbp_" + _r(40, _HEX),
    "anthropic_api_key": "sk-ant-api03-" + _r(93, _URLSAFE) + "AA",
    "openai_api_key": "sk-proj-" + _r(48, _URLSAFE),
    "openai_api_key/legacy": "sk-" + _r(48),
    "huggingface_token": "hf_" + _r(34),
    "groq_api_key": "gsk_" + _r(52),
    "replicate_token": "r8_" + _r(37),
    "perplexity_api_key": "pplx-" + _r(48),
    "xai_api_key": "xai-" + _r(80),
    "nvidia_api_key": "nvapi-" + _r(64, _URLSAFE),
    "langsmith_api_key": f"lsv2_pt_{_r(32, _HEX)}_{_r(10, _HEX)}",
    "pinecone_api_key": "pcsk_" + _r(60, _ALNUM + "_"),
    "slack_token": f"xoxb-{_r(12, string.digits)}-{_r(13, string.digits)}-{_r(24)}",
    "slack_token/user": f"xoxp-{_r(12, string.digits)}-{_r(12, string.digits)}-{_r(13, string.digits)}-{_r(32, _HEX)}",
    "slack_app_token": f"xapp-1-A{_r(10, _UPNUM)}-{_r(13, string.digits)}-{_r(64, _HEX)}",
    "stripe_key": "sk_live_" + _r(24),
    "stripe_key/restricted": "rk_live_" + _r(24),
    "stripe_webhook_secret": "whsec_" + _r(32),
    "square_token": "sq0atp-" + _r(22, _URLSAFE),
    "square_token/secret": "sq0csp-" + _r(43, _URLSAFE),
    "twilio_api_key": "SK" + _r(32, _HEX),
    "sendgrid_api_key": f"SG.{_r(22, _URLSAFE)}.{_r(43, _URLSAFE)}",
    "mailgun_api_key": "key-" + _r(32, _HEX),
    "mailchimp_api_key": _r(32, _HEX) + "-us14",
    "brevo_api_key": f"xkeysib-{_r(64, _HEX)}-{_r(16)}",
    "postman_api_key": f"PMAK-{_r(24, _HEX)}-{_r(34, _HEX)}",
    "newrelic_key": "NRAK-" + _r(27, _UPNUM),
    "shopify_token": "shpat_" + _r(32, _HEX),
    "databricks_token": "dapi" + _r(32, _HEX),
    "planetscale_token": "pscale_tkn_" + _r(43),
    "linear_api_key": "lin_api_" + _r(40),
    "notion_token": "ntn_" + _r(46),
    "grafana_token": f"glsa_{_r(32)}_{_r(8, _HEX)}",
    "figma_token": "figd_" + _r(40, _URLSAFE),
    "sentry_token": "sntrys_" + _r(60),
    "contentful_token": "CFPAT-" + _r(43, _URLSAFE),
    "typeform_token": "tfp_" + _r(59),
    "dynatrace_token": f"dt0c01.{_r(24, _UPNUM)}.{_r(64, _UPNUM)}",
    "easypost_key": "EZAK" + _r(54),
    "shippo_token": "shippo_live_" + _r(40, _HEX),
    "duffel_token": "duffel_live_" + _r(43, _URLSAFE),
    "adafruit_key": "aio_" + _r(28),
    "airtable_token": f"pat{_r(14)}.{_r(64, _HEX)}",
    "mapbox_token": f"sk.eyJ{_r(40, _URLSAFE)}.{_r(22, _URLSAFE)}",
    "facebook_token": "EAACEdEose0cBA" + _r(120),
    "telegram_bot_token": f"{_r(10, string.digits)}:AA{_r(33, _URLSAFE)}",
    "discord_bot_token": f"M{_r(25)}.{_r(6)}.{_r(38)}",
    "discord_bot_token/in_a_run": f"{_r(2)}M{_r(23)}.{_r(6)}.{_r(27)}",
    "jwt": _jwt(),
    "jwt/unsigned": _jwt().rsplit(".", 1)[0],
    "flutterwave_key": f"FLWSECK_TEST-{_r(32, 'abcdefgh0123456789')}-X",
    "frameio_token": "fio-u-" + _r(64, _URLSAFE),
    "adobe_client_secret": "p8e-" + _r(32),
    "facebook_app_token": f"{_r(15, string.digits)}|{_r(27, _URLSAFE)}",
    "intra42_client_secret": "s-s4t2ud-" + _r(64, _HEX),
    "onepassword_secret_key": "A3-" + "-".join(_r(n, _UPNUM) for n in (6, 11, 5, 5, 5)),
    "openshift_token": "sha256~" + _r(43, _URLSAFE),
    "sourcegraph_token": "sgp_" + _r(40, _HEX),
    "twilio_account_sid": "AC" + _r(32, _HEX),
    "doppler_token/service_with_environment": f"dp.st.{_rnd.choice(('dev', 'prd', 'stg_eu'))}.{_r(43)}",
    "dependency_track_key": "odt_" + _r(32),
    "dependency_track_key/long": "odt_" + _r(40),
    "tavily_api_key": "tvly-" + _r(32),
    "tavily_api_key/dev": "tvly-dev-" + _r(32),
    "twitch_stream_key": f"live_{_r(9, string.digits)}_{_r(30)}",
    "newrelic_key/insights_query": f"NRIQ-{_r(2)}-{_r(14)}-{_r(14)}",
    "vault_token/legacy_service": "s.CAES" + _r(96, _URLSAFE),
    "crates_io_token": "cio" + _r(32),
    "truenas_api_key": f"{_rnd.randint(1, 40)}-{_r(64)}",
    "private_key_base64": base64.b64encode(
        f"-----BEGIN {_rnd.choice(('RSA ', 'EC ', '', 'OPENSSH '))}PRIVATE KEY-----\n{_r(64, _ALNUM + '+/')}\n".encode()
    ).decode(),
    "salesforce_session_id": f"00D{_r(12)}!{_r(96, _ALNUM + '._')}",
    "github_fine_grained_token/beta": "github_pat_" + _r(37),
    "bitbucket_app_password/short": "ATBB" + _r(27),
    "square_token/sandbox_id": "sq0idk-" + _r(27, _URLSAFE),
    "mailgun_api_key/base36": "key-" + _r(32, string.ascii_lowercase + string.digits),
    "newrelic_key/license": f"eu01xx{_r(30, _HEX)}NRAL",
    "newrelic_key/mobile": f"{_r(42, _HEX)}-NRMA",
    "azure_devops_token": f"{_r(76)}AZDO{_r(4)}",
    "pganalyze_key": "pgar_" + _r(27),
    "rootly_key": "rootly_" + _r(64, _HEX),
    "photoroom_key": f"sk_pr_{_r(6, string.ascii_lowercase)}_{_r(40, _HEX)}",
    "endorlabs_key": "endr+" + _r(16),
    "launchdarkly_key": "sdk-" + "-".join(_r(n, string.ascii_lowercase + string.digits) for n in (8, 4, 4, 4, 12)),
    # issue 28, seventh round: formats from semgrep-rules' and secretlint's cases
    "github_token/installation_jwt": f"ghs_{_r(6, string.digits)}_{_jwt()}",
    "cloudflare_api_token": f"cfat_{_r(40)}{_r(8, _HEX)}",
    "cloudflare_api_token/user": f"cfut_{_r(40)}{_r(8, _HEX)}",
    "aws_appsync_key": "da2-" + _r(26, string.ascii_lowercase + string.digits),
    "tailscale_key": f"tskey-auth-{_r(12)}CNTRL-{_r(32)}",
    "tailscale_key/api": f"tskey-api-{_r(12)}CNTRL-{_r(32)}",
    "vercel_token": "vcp_" + _r(48),
    "vercel_token/app": "vca_" + _r(56),
    "shopify_token/base62_secret": "shpss_" + _r(32),
    "onfido_token": f"api_live.{_r(11, _URLSAFE)}.{_r(32, _URLSAFE)}",
    "onfido_token/region": f"api_sandbox_us.{_r(11, _URLSAFE)}.{_r(32, _URLSAFE)}",
    "braintree_token": f"access_token$production${_r(16, string.ascii_lowercase + string.digits)}"
    f"${_r(32, string.ascii_lowercase + string.digits)}",
    "prefixed_token": f"k2sk_v1_{_r(24)}",
    "prefixed_token/environment": f"acmepay_live_{_r(32)}",
    "buildkite_token": "bkua_" + _r(40, string.ascii_lowercase + string.digits),
    "clickup_token": f"pk_{_r(8, string.digits)}_{_r(32, _UPNUM)}",
    "elevenlabs_key": "sk_" + _r(48, _HEX),
    "dropbox_token": "sl.u." + _r(140, _URLSAFE),
}


def _line(template: str, secret: str) -> tuple[str, list[str]]:
    return template.format(s=secret), [secret]


_CONTEXTS = (
    "I pasted {s} into the chat by mistake, can you rotate it?",  # prose
    "$ ./deploy.sh --region eu-west-1 --profile ci {s} && echo done",  # a command
    '{{"name": "ci-deploy", "value": "{s}", "scope": "repo"}}',  # JSON
    "HOST=db.internal\r\nVALUE={s}\r\nPORT=5432\r\n",  # a CRLF file
)

POSITIVE: list[tuple[str, list[str]]] = [_line(c, s) for s in FORMAT_SAMPLES.values() for c in _CONTEXTS]

_PW = [_r(14, _ALNUM + "!#%^*"), _r(18), _r(12, _ALNUM + "-_"), _r(20, _ALNUM + "!$")]
_KEY_ID = FORMAT_SAMPLES["aws_access_key_id"]
_AWS_SECRET = _r(40, _B64)
_V = [_r(32, _HEX), _r(32), _r(40), _r(32, _HEX), _r(86, _B64) + "==", _r(43, _B64) + "="]
_V += [_r(40, _HEX), _r(40), _r(32), _r(32), _r(40)]
_BASIC = base64.b64encode(f"deploy:{_PW[0]}".encode()).decode()
_SCHEMES = (
    "postgres",
    "postgresql",
    "mysql",
    "mongodb",
    "mongodb+srv",
    "redis",
    "rediss",
    "amqp",
    "amqps",
    "https",
    "http",
)

for i, scheme in enumerate(_SCHEMES):
    pw = _r(16, _ALNUM + "!*-")
    url = f"{scheme}://app_user:{pw}@db{i}.prod.internal:5432/shop"
    POSITIVE += [
        (f"connect with {url} and run the migration", [pw]),
        (f"DATABASE_URL={url}", [pw]),
        (f'{{"dsn": "{url}", "pool": 5}}', [pw]),
        (f"psql '{url}' -c 'select 1'\r\n", [pw]),
    ]
POSITIVE += [
    (f"redis-cli -u redis://:{_PW[1]}@cache.internal:6379 ping", [_PW[1]]),
    (f"git clone https://oauth2:{_PW[1]}@gitlab.example.com/group/repo.git", [_PW[1]]),
    (f"export DB_PASSWORD={_PW[0]}", [_PW[0]]),
    (f'DB_PASSWORD="{_PW[1]}"', [_PW[1]]),
    (f"PGPASSWORD={_PW[2]} psql -h db -U app shop", [_PW[2]]),
    (f'{{"client_secret": "{_PW[3]}", "client_id": "web"}}', [_PW[3]]),
    (f"password: {_PW[0]}", [_PW[0]]),
    (f"  db_pass: '{_PW[1]}'\r\n", [_PW[1]]),
    (f"Server=sql.internal;Database=shop;User Id=app;Password={_PW[2]};", [_PW[2]]),
    (f"jdbc:postgresql://db:5432/shop?user=app&password={_PW[3]}&ssl=true", [_PW[3]]),
    (f"TWILIO_AUTH_TOKEN={_V[0]}", [_V[0]]),
    (f'api_key = "{_V[1]}"', [_V[1]]),
    (f"const apiKey = '{_V[2]}';", [_V[2]]),
    (f"SLACK_SIGNING_SECRET={_V[3]}", [_V[3]]),
    (
        f"DefaultEndpointsProtocol=https;AccountName=shopdata;AccountKey={_V[4]};EndpointSuffix=core.windows.net",
        [_V[4]],
    ),
    (f"Endpoint=sb://bus.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey={_V[5]}", [_V[5]]),
    (f"curl -H 'Authorization: Bearer {_PW[1]}' https://api.example.com/v1/me", [_PW[1]]),
    (f'-H "authorization: token {_V[6]}"', [_V[6]]),
    (f"Authorization: Basic {_BASIC}", [_BASIC]),
    (f'{{"headers": {{"Authorization": "Bearer {_PW[3]}"}}}}', [_PW[3]]),
    (f"x-api-key: {_V[7]}", [_V[7]]),
    (f"curl https://api.example.com -H 'X-Auth-Token: {_V[8]}'", [_V[8]]),
    (f"mysql -h db.internal -u root -p{_PW[0]} shop < dump.sql", [_PW[0]]),
    (f"sshpass -p {_PW[1]} ssh deploy@10.0.0.5", [_PW[1]]),
    (f"redis-cli -h cache.internal -a {_PW[2]} ping", [_PW[2]]),
    (f"curl -u deploy:{_PW[3]} https://ci.example.com/job/build", [_PW[3]]),
    (f"./manage.py createsuperuser --username admin --password {_PW[0]}", [_PW[0]]),
    (f"terraform apply -var db_user=app --password={_PW[1]}", [_PW[1]]),
    (f"docker login registry.example.com -u ci --password {_PW[2]}", [_PW[2]]),
    (f"The password is {_PW[0]} until Friday.", [_PW[0]]),
    (f"Use access key {_KEY_ID} with secret {_AWS_SECRET} for the backup bucket.", [_KEY_ID, _AWS_SECRET]),
    (
        f"aws configure set aws_access_key_id {_KEY_ID}\naws configure set aws_secret_access_key {_AWS_SECRET}",
        [_KEY_ID, _AWS_SECRET],
    ),
    (f"key id {_KEY_ID}\r\nsecret {_AWS_SECRET}\r\n", [_KEY_ID, _AWS_SECRET]),
    (f"my api key is {_V[9]} please keep it safe", [_V[9]]),
    (f"here's the token: {_V[10]}", [_V[10]]),
]

_PEM_BODY = "\n".join(_r(64, _B64) for _ in range(6))
_RSA = f"-----BEGIN RSA PRIVATE KEY-----\n{_PEM_BODY}\n-----END RSA PRIVATE KEY-----"
_OPENSSH = (
    f"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA{_PEM_BODY}\n-----END OPENSSH PRIVATE KEY-----"
)
_PKCS8 = f"-----BEGIN PRIVATE KEY-----\n{_PEM_BODY}\n-----END PRIVATE KEY-----\n"
_KEY_ID_HEX = _r(40, _HEX)
POSITIVE += [
    (f"here is the deploy key:\n{_RSA}\nadd it to the runner", [_PEM_BODY.split("\n")[0]]),
    (f"cat ~/.ssh/id_ed25519\r\n{_OPENSSH}\r\n", [_PEM_BODY.split("\n")[2]]),
    (
        '{"type": "service_account", "project_id": "shop-prod", "private_key_id": "'
        + _KEY_ID_HEX
        + '", "private_key": "'
        + _PKCS8.replace("\n", "\\n")
        + '", "client_email": "ci@shop-prod.iam.gserviceaccount.com"}',
        [_KEY_ID_HEX, _PEM_BODY.split("\n")[1]],
    ),
]

NEGATIVE: list[str] = [
    # code that names tokens, secrets and passwords
    "this.tokens = Math.min(this.burst, this.tokens + elapsed * this.rate);",
    "self.tokens = min(self.capacity, self.tokens + refill)",
    "max_tokens = 4096",
    "token_count += len(tokens)",
    'tokenizer = AutoTokenizer.from_pretrained("gpt2")',
    'password = request.form["password"]',
    'password = os.environ["DB_PASSWORD"]',
    'secret = get_secret("prod/db")',
    "api_key: str | None = None",
    "api_key = settings.OPENAI_API_KEY",
    "self.token = token",
    "if password == confirm_password:",
    "def check_password(password: str) -> bool:",
    "password_hash = bcrypt.hashpw(password.encode(), salt)",
    "const token = await getToken();",
    "let secret = process.env.SECRET;",
    "export TOKEN=$(gh auth token)",
    'TOKEN="${GITHUB_TOKEN}"',
    "password: ${DB_PASSWORD}",
    'secret_name = "prod/db"',
    'auth_method = "oauth2"',
    'token_type = "bearer"',
    "primary_key = True",
    "sort_key = lambda row: row.created_at",
    "client_secret = config.get('client_secret')",
    "access_token = response.json()['access_token']",
    "refresh_token = None",
    "password: string;",
    "token: str",
    "secret: Optional[str] = None",
    "api_key=api_key,",
    "password=password,",
    'headers = {"Authorization": f"Bearer {token}"}',
    'headers["Authorization"] = "Bearer " + access_token',
    "Authorization: Bearer $TOKEN",
    "Authorization: Bearer <token>",
    "Authorization: Bearer ${{ secrets.GITHUB_TOKEN }}",
    "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
    "env:\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}",
    'SECRET_KEY_SETTING = "DJANGO_SECRET_KEY"',
    "PALLIUM_EMBED_API_KEY",
    "keys = sorted(mapping.keys())",
    "for key, value in secrets.items():",
    "monkey_patch = True",
    "bypass = os.getenv('BYPASS_CACHE')",
    "tokens.append(Token(kind='word', text=text))",
    "jwt_secret = os.environ.get('JWT_SECRET', '')",
    "password_reset_url = f'{base}/reset/{uid}'",
    "if not token: raise AuthError('missing token')",
    "assert redact('nothing here') == ('nothing here', 0)",
    "@param password the user's password, never logged",
    "* @returns {Promise<string>} the access token",
    "credentials = Credentials.from_service_account_file(path)",
    "key = f'{prefix}:{user_id}'",
    "cache_key = hashlib.sha256(raw).hexdigest()",
    "private_key = load_pem_private_key(data, password=None)",
    "token = jwt.encode(payload, key, algorithm='HS256')",
    "secret_key_base = Rails.application.credentials.secret_key_base",
    "PWD=/home/dev/shop",
    "OLDPWD=/home/dev",
    "password_min_length = 12",
    "session_token_ttl = 3600",
    # prose about secrets
    "Rotate the API key every 90 days.",
    "The token expired after 3600 seconds, so the call failed.",
    "Passwords must be at least 12 characters long.",
    "Store the secret in Vault, never in the repository.",
    "The session token is refreshed automatically by the client.",
    "We keep the credentials in 1Password.",
    "the password is stored hashed with bcrypt",
    "Please set your token in the settings page.",
    "A bearer token is sent in the Authorization header.",
    "the secret sauce is caching",
    "token usage totals are in the capsule",
    "Count input tokens once per message id.",
    "Secrets planted anywhere in a transcript never reach the database file.",
    "The key insight is that the backfill is idempotent.",
    "use the password manager for shared accounts",
    # hashes, ids and long identifiers
    "commit 5d0c2a9e71b4f3c8a6d2e9b1f07c4a3e8d6b2f10",
    "[feature/payment-retries a41c9e2] payments: retry gateway charges",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    '"integrity": "sha512-3L9kNcEAn1Xk9mF2pP3Gq1tHbWk8v9xJvYxkq3b1QdTzZz7JhXkqY6x3m1r2Q9w=="',
    "session 01a1fe4c-ac8f-73f3-ab29-7ba0ed97d666 resumed",
    "request id req_011CSDuJZKMvlsbxFHz9GuXl",
    "toolu_01Zx6maUhHTz9SvKRidQZhUs returned 3 files",
    "msg_01mtQhA14VqnPa5lwOo0OpGc",
    "call_CXX4ukt5tKTgH1ZhohdSTxhy was never answered",
    "test_a_claude_process_is_matched_through_the_registry_and_is_blocked",
    "PaymentGatewayClientFactoryBeanPostProcessor",
    "claude/projects/-home-dev-shop/4ba71ab7-ac05-44a5-acc6-be1805fdf179.jsonl",
    "node_modules/@anthropic-ai/claude-code/cli.js",
    "--dangerously-skip-permissions",
    "ERROR_RATE_LIMIT_EXCEEDED_FOR_THE_CURRENT_WINDOW",
    "internationalization and localization",
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    'ETag: W/"5e7b29e05b454fc78f0a643bfe822b95"',
    "Set-Cookie: theme=dark; Path=/; SameSite=Lax",
    "X-Request-Id: 7c0e0000-1111-4222-8333-444455556666",
    "The build took 2026-11-21T15:30:00Z to 2026-11-21T15:42:10Z.",
    "scikit-learn==1.5.2 and sk-video are installed",
    "risk-adjusted-returns-for-the-quarter-2026-report",
    "task-complete-after-interrupt-2026",
    "the model gpt-5.5-codex answered in 2678 ms",
    "AKIA is the prefix of AWS access key ids",
    "ghp_ tokens are classic GitHub personal access tokens",
    "export OPENAI_API_KEY=sk-...",
    "sk-proj-xxxxxxxxxxxxxxxxxxxx",
    "AWS_SECRET_ACCESS_KEY=YOUR_SECRET_KEY_HERE",
    # URLs without credentials, or with placeholders
    "https://github.com/org/repo/pull/123",
    "ssh://git@github.com/org/repo.git",
    "git@github.com:org/repo.git",
    "postgres://localhost:5432/shop",
    "postgres://app@localhost/shop",
    "http://localhost:8080/api/v1/users/me@home",
    "postgres://user:password@localhost:5432/db",
    "mysql://root:${MYSQL_ROOT_PASSWORD}@db:3306/app",
    "redis://:<password>@localhost:6379/0",
    "amqp://guest:****@rabbit:5672/",
    "mongodb+srv://<user>:<pass>@cluster0.example.net/test",
    "https://user:pass@example.com",
    "see https://docs.example.com/auth#tokens for details",
    "mailto:dev@example.com",
    # placeholders
    "DB_PASSWORD=changeme",
    'api_key = "<your-api-key>"',
    "token: xxxxxxxx",
    'password: "********"',
    'password = "your_password_here"',
    "SECRET_KEY=replace-me-in-production",
    'client_secret: "{{ vault_client_secret }}"',
    "api_key: %(api_key)s",
    "password = ''",
    "token=",
    "password = None",
    "AUTH_TOKEN=[REDACTED:assignment]",
    "export API_KEY=$API_KEY",
    "set PASSWORD=%DB_PASSWORD%",
    # command lines that look like password flags
    "mkdir -p build/output/reports",
    "ssh -p 2222 dev@bastion.internal",
    "docker run -p 8080:80 nginx",
    "git add -p",
    "mysql -u root -p",
    "mysql -h db -P 3306 -u app -p shop",
    "python -m pytest -p no:cacheprovider -q",
    "redis-cli -h cache -p 6379 ping",
    "curl -u $USER:$PASS https://ci.example.com",
    "docker login --password-stdin < token.txt",
    "vault kv put secret/db --password-file /run/secrets/db",
    "gh auth login --with-token < token.txt",
    "ls --color=auto -la",
    "kubectl create secret generic db --from-file=password=./pw.txt",
    "openssl genrsa -out private.key 2048",
    "ssh-keygen -t ed25519 -f ~/.ssh/id_ed25519 -N ''",
    "git log --format='%H %an' -n 5",
    "npm publish --access public",
    "pip install --index-url https://pypi.org/simple requests",
    "rsync -avz --progress src/ dest/",
    "tar -czf backup.tar.gz --exclude=node_modules .",
    "sed -n '40,80p' checkout/service.py",
    "grep -rn 'password' src/",
    "python scripts/backfill_payments.py --start-id 25001 --batch-size 5000 --max-batches 1",
    "alembic upgrade head",
    # key material that is public
    "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
    "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUFakeCertificateBody\n-----END CERTIFICATE-----",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHk2Vz dev@laptop",
    # CRLF files without secrets
    "HOST=db.internal\r\nPORT=5432\r\nUSER=app\r\n",
    "[database]\r\nhost = db.internal\r\nname = shop\r\n",
    "TOKEN_TTL=3600\r\nPASSWORD_MIN_LENGTH=12\r\n",
    # JSON without secrets
    '{"input_tokens": 15214, "cached_input_tokens": 3456, "output_tokens": 268}',
    '{"type": "token_count", "info": null}',
    '{"password_policy": {"min_length": 12, "require_digit": true}}',
    '{"auth": {"type": "oauth2", "scopes": ["repo", "read:org"]}}',
    '{"token_type": "Bearer", "expires_in": 3600}',
    '{"secret": true, "name": "DB_PASSWORD"}',
    '{"key": "value", "other_key": "other value"}',
]
