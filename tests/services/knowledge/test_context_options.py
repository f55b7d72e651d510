"""`knowledge context` on a Ruby gem: an option is read where its key is used, a type of another library is
no lead, and a file the task names around a word is read without its look-alike sibling.

The classes a held-out Ruby gem showed: `raise_on` (and `the :pem option`) is a class-level setter
storing `default_options[:raise_on]`, and the change is where `options[:raise_on]` is read; a name
qualified by a type the index does not know (`OpenSSL::PKey.read`) is that library's, not the gem's
`read`; "the curl log formatter" spells `curl_formatter.rb` around the word between, and
`apache_formatter.rb` beside it, sharing only the task's words and its history, is the look-alike.
"""

from pathlib import Path

import pytest

from tests.services.knowledge.conftest import ask, commit

pytestmark = pytest.mark.anyio


def _spec(name: str, body: str) -> str:
    return f"require 'spec_helper'\n\nRSpec.describe {name} do\n  it 'works' do\n    {body}\n  end\nend\n"


def _formatter(name: str, joiner: str) -> str:
    return (
        f"module Gem\n  module Logging\n    # Formats a request and its response as {name} log lines.\n"
        f"    class {name}Formatter\n      def format(request, response)\n"
        f"        lines = [request.to_s, response.to_s]\n        lines.join({joiner})\n      end\n    end\n  end\nend\n"
    )


@pytest.fixture
def gem_repo(empty_repo: Path) -> Path:
    commit(
        empty_repo,
        "Start",
        {
            "gem.gemspec": "Gem::Specification.new do |s|\n  s.name = 'gem'\n  s.files = Dir['lib/**/*.rb']\nend\n",
            "lib/gem.rb": "require 'gem/response'\nrequire 'gem/connection_adapter'\n\nmodule Gem\n"
            "  module ClassMethods\n    # Raises ResponseError for the codes given.\n"
            "    def raise_on(codes = [])\n      default_options[:raise_on] = codes\n    end\n\n"
            "    # The client certificate, PEM encoded.\n"
            "    def pem(contents, password = nil)\n      default_options[:pem] = contents\n"
            "      default_options[:pem_password] = password\n    end\n  end\nend\n",
            "lib/gem/exceptions.rb": "module Gem\n  # Raised for a status code listed in raise_on.\n"
            "  class ResponseError < StandardError; end\nend\n",
            "lib/gem/response.rb": "module Gem\n  # The answer to a request.\n  class Response\n"
            "    def initialize(request, code)\n      @request = request\n      @code = code\n    end\n\n"
            "    def check\n      raise ResponseError if @request.options[:raise_on].to_a.include?(@code)\n"
            "    end\n  end\nend\n",
            "lib/gem/connection_adapter.rb": "module Gem\n  # Opens the Net::HTTP connection.\n"
            "  class ConnectionAdapter\n    def connection(options)\n      http = Object.new\n"
            "      http.key = OpenSSL::PKey::RSA.new(options[:pem], options[:pem_password]) if options[:pem]\n"
            "      http\n    end\n  end\nend\n",
            "lib/gem/streaming_body.rb": "module Gem\n  # A multipart body streamed from files.\n"
            "  class StreamingBody\n    # Reads the next chunk of the body.\n"
            "    def read(length = nil)\n      @parts.shift\n    end\n  end\nend\n",
            "lib/gem/logging/curl_formatter.rb": _formatter("Curl", "'\\n'"),
            "lib/gem/logging/apache_formatter.rb": _formatter("Apache", "' '"),
            "spec/spec_helper.rb": "require 'gem'\n",
            "spec/gem_spec.rb": _spec("Gem", "expect(Gem::ClassMethods).to be_a(Module)"),
            "spec/gem/response_spec.rb": _spec("Gem::Response", "expect(Gem::Response.new(nil, 200)).to be"),
            "spec/gem/connection_adapter_spec.rb": _spec(
                "Gem::ConnectionAdapter", "expect(Gem::ConnectionAdapter.new).to be"
            ),
            "spec/gem/streaming_body_spec.rb": _spec("Gem::StreamingBody", "expect(Gem::StreamingBody.new).to be"),
            "spec/gem/logging/curl_formatter_spec.rb": _spec(
                "Gem::Logging::CurlFormatter", "expect(Gem::Logging::CurlFormatter.new).to be"
            ),
            "spec/gem/logging/apache_formatter_spec.rb": _spec(
                "Gem::Logging::ApacheFormatter", "expect(Gem::Logging::ApacheFormatter.new).to be"
            ),
        },
    )
    for i in range(4):  # the two formatters change together, as log formats do
        commit(
            empty_repo,
            f"Log format {i}",
            {
                "lib/gem/logging/curl_formatter.rb": _formatter("Curl", "'\\n'") + f"# {i}\n",
                "lib/gem/logging/apache_formatter.rb": _formatter("Apache", "' '") + f"# {i}\n",
            },
        )
    return empty_repo


async def _read(repo: Path, task: str) -> tuple[list[str], list[str]]:
    await ask(repo, "pallium_knowledge_build", model=False)
    out = await ask(repo, "pallium_knowledge_context", task=task)
    return [f.path for f in out.read], out.tests


async def test_an_option_the_task_names_is_read_where_its_key_is_used(gem_repo: Path):
    read, tests = await _read(gem_repo, "raise_on should accept patterns as well as codes: raise_on ['5[0-9]*'].")
    assert "lib/gem/response.rb" in read[:3]  # `options[:raise_on]` is read there
    assert "lib/gem.rb" in read
    assert "spec/gem/response_spec.rb" in tests[:3]


async def test_a_ruby_symbol_names_the_option_and_another_librarys_type_is_no_lead(gem_repo: Path):
    read, _ = await _read(gem_repo, "The :pem option should accept EC keys too: read the key with OpenSSL::PKey.read.")
    assert "lib/gem/connection_adapter.rb" in read[:3]
    assert "lib/gem/streaming_body.rb" not in read  # its `read` is not OpenSSL's


async def test_a_file_named_around_a_word_is_read_without_its_look_alike(gem_repo: Path):
    read, tests = await _read(gem_repo, "The curl log formatter should join its lines with real newlines.")
    assert read[0] == "lib/gem/logging/curl_formatter.rb"
    assert "lib/gem/logging/apache_formatter.rb" not in read
    assert "spec/gem/logging/apache_formatter_spec.rb" not in tests
