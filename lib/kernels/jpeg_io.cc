// libjpeg reports fatal errors through error_exit, which must not return:
// it longjmps back to the setjmp in the calling function. Those functions
// hold no C++ objects with destructors across the jump (raw buffers only).
#include "lib/kernels/jpeg_io.h"

#include <jerror.h>
#include <jpeglib.h>
#include <setjmp.h>
#include <stdio.h>  // jpeglib.h needs FILE

#include <algorithm>
#include <cstring>

namespace dfg {
namespace {

struct ErrorMgr {
  jpeg_error_mgr pub;
  jmp_buf jump;
};

void ErrorExit(j_common_ptr cinfo) {
  longjmp(reinterpret_cast<ErrorMgr*>(cinfo->err)->jump, 1);
}

void SilentMessage(j_common_ptr) {}

// TensorFlow's memory source (jpeg_handle.cc).
struct MemSource {
  jpeg_source_mgr pub;
  const JOCTET* data;
  size_t size;
  bool try_recover;
};

const JOCTET kEoi[2] = {0xff, JPEG_EOI};

void InitSource(j_decompress_ptr) {}
void TermSource(j_decompress_ptr) {}

boolean FillInputBuffer(j_decompress_ptr cinfo) {
  MemSource* src = reinterpret_cast<MemSource*>(cinfo->src);
  if (src->pub.bytes_in_buffer == 0 && src->pub.next_input_byte == src->data) {
    ERREXIT(cinfo, JERR_INPUT_EMPTY);
    return FALSE;
  }
  if (src->pub.bytes_in_buffer != 0) return src->try_recover ? TRUE : FALSE;
  if (src->pub.next_input_byte != kEoi && src->try_recover) {
    WARNMS(cinfo, JWRN_JPEG_EOF);
    src->pub.next_input_byte = kEoi;
    src->pub.bytes_in_buffer = 2;
    return TRUE;
  }
  ERREXIT(cinfo, JERR_FILE_READ);
  return FALSE;
}

void SkipInputData(j_decompress_ptr cinfo, long num_bytes) {  // NOLINT
  MemSource* src = reinterpret_cast<MemSource*>(cinfo->src);
  if (num_bytes <= 0) return;
  if (static_cast<size_t>(num_bytes) > src->pub.bytes_in_buffer) {
    src->pub.next_input_byte += src->pub.bytes_in_buffer;
    src->pub.bytes_in_buffer = 0;
    (void)FillInputBuffer(cinfo);
  } else {
    src->pub.next_input_byte += num_bytes;
    src->pub.bytes_in_buffer -= num_bytes;
  }
}

void SetSource(j_decompress_ptr cinfo, MemSource* src, std::string_view data,
               bool try_recover) {
  src->pub.init_source = InitSource;
  src->pub.fill_input_buffer = FillInputBuffer;
  src->pub.skip_input_data = SkipInputData;
  src->pub.resync_to_restart = jpeg_resync_to_restart;
  src->pub.term_source = TermSource;
  src->data = reinterpret_cast<const JOCTET*>(data.data());
  src->size = data.size();
  src->pub.next_input_byte = src->data;
  src->pub.bytes_in_buffer = data.size();
  src->try_recover = try_recover;
  cinfo->src = &src->pub;
}

void CmykRowToRgb(const JSAMPLE* cmyk, int width, bool adobe, uint8_t* rgb) {
  for (int i = 0; i < width; ++i, cmyk += 4, rgb += 3) {
    const int c = cmyk[0], m = cmyk[1], y = cmyk[2], k = cmyk[3];
    if (adobe) {
      rgb[0] = (k * c) / 255, rgb[1] = (k * m) / 255, rgb[2] = (k * y) / 255;
    } else {
      rgb[0] = (255 - k) * (255 - c) / 255;
      rgb[1] = (255 - k) * (255 - m) / 255;
      rgb[2] = (255 - k) * (255 - y) / 255;
    }
  }
}

struct DecodeState {
  uint8_t* out = nullptr;
  JSAMPLE* temp = nullptr;
  int components = 0;
  int height = 0, stride = 0, rows_read = 0;
};

// Sets up cinfo after the header; false when the request cannot be met.
bool Configure(jpeg_decompress_struct* cinfo, const JpegDecodeFlags& flags,
               int* components) {
  if (*components == 0) *components = std::min(cinfo->num_components, 3);
  if (*components == 1) {
    cinfo->out_color_space = JCS_GRAYSCALE;
  } else {
    const bool cmyk = cinfo->jpeg_color_space == JCS_CMYK ||
                      cinfo->jpeg_color_space == JCS_YCCK;
    cinfo->out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
  }
  cinfo->do_fancy_upsampling = flags.fancy_upscaling ? TRUE : FALSE;
  cinfo->scale_num = 1;
  cinfo->scale_denom = flags.ratio;
  cinfo->dct_method = flags.integer_accurate ? JDCT_ISLOW : JDCT_IFAST;
  jpeg_calc_output_dimensions(cinfo);
  const int64_t total = static_cast<int64_t>(cinfo->output_height) *
                        cinfo->output_width * cinfo->num_components;
  return cinfo->output_width > 0 && cinfo->output_height > 0 &&
         total < (int64_t{1} << 29);
}

bool CropValid(const JpegDecodeFlags& f, int width, int height) {
  return f.crop_width > 0 && f.crop_height > 0 && f.crop_x >= 0 &&
         f.crop_y >= 0 && f.crop_y + f.crop_height <= height &&
         f.crop_x + f.crop_width <= width;
}

// Reads the rows into st->out; returns false on a fatal setup failure.
bool ReadRows(jpeg_decompress_struct* cinfo, const JpegDecodeFlags& flags,
              int components,
              const std::function<uint8_t*(int, int, int)>& allocate,
              DecodeState* st) {
  JDIMENSION width = cinfo->output_width, height = cinfo->output_height;
  JDIMENSION skipped = 0;
  if (flags.crop) {
    if (!CropValid(flags, width, height)) return false;
    width = flags.crop_width;
    height = flags.crop_height;
    JDIMENSION crop_x = flags.crop_x, crop_w = flags.crop_width;
    jpeg_crop_scanline(cinfo, &crop_x, &crop_w);
    skipped = jpeg_skip_scanlines(cinfo, flags.crop_y);
  }
  const int row = width * components;
  st->height = height;
  st->stride = row;
  st->out = allocate(width, height, components);
  if (st->out == nullptr) return false;
  const bool cmyk = cinfo->out_color_space == JCS_CMYK;
  const bool realign = width != cinfo->output_width;
  const int offset = (cinfo->output_width - width) * (cmyk ? 4 : components);
  if (cmyk || realign) {
    st->temp = new JSAMPLE[cinfo->output_width * (cmyk ? 4 : components)];
  }
  st->rows_read = height;
  uint8_t* line = st->out;
  const JDIMENSION last = skipped + height;
  while (cinfo->output_scanline < last) {
    JSAMPROW dst = (cmyk || realign) ? st->temp : line;
    const int n = jpeg_read_scanlines(cinfo, &dst, 1);
    if (n == 0) {
      if (!flags.try_recover_truncated) {
        st->rows_read = cinfo->output_scanline - skipped;
      } else {
        for (JDIMENSION y = cinfo->output_scanline; y < last; ++y) {
          if (y == 0) {
            std::memset(line, 0, row);
          } else {
            std::memcpy(line, line - row, row);
          }
          line += row;
        }
        cinfo->output_scanline = last;
      }
      return true;
    }
    if (cmyk) {
      CmykRowToRgb(st->temp + (realign ? offset : 0), width,
                   cinfo->saw_Adobe_marker, line);
    } else if (realign) {
      std::memcpy(line, st->temp + offset, row);
    }
    line += row;
  }
  if (flags.crop && cinfo->output_scanline < cinfo->output_height) {
    jpeg_skip_scanlines(
        cinfo, cinfo->output_height - flags.crop_y - flags.crop_height);
  }
  return true;
}

}  // namespace

bool DecodeJpeg(std::string_view data, const JpegDecodeFlags& flags,
                const std::function<uint8_t*(int, int, int)>& allocate) {
  if (data.empty()) return false;
  jpeg_decompress_struct cinfo;
  ErrorMgr err;
  MemSource src;
  DecodeState st;
  st.components = flags.components;
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = ErrorExit;
  err.pub.output_message = SilentMessage;
  if (setjmp(err.jump)) {
    delete[] st.temp;
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  jpeg_create_decompress(&cinfo);
  SetSource(&cinfo, &src, data, flags.try_recover_truncated);
  jpeg_read_header(&cinfo, TRUE);
  if (!Configure(&cinfo, flags, &st.components)) {
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  jpeg_start_decompress(&cinfo);
  const bool ok = ReadRows(&cinfo, flags, st.components, allocate, &st);
  delete[] st.temp;
  st.temp = nullptr;
  const bool complete = ok && st.rows_read == st.height;
  if (complete) {
    jpeg_finish_decompress(&cinfo);
  } else {
    jpeg_abort(reinterpret_cast<j_common_ptr>(&cinfo));
  }
  jpeg_destroy_decompress(&cinfo);
  if (!ok) return false;
  const float fraction =
      st.height == 0 ? 1.0f : static_cast<float>(st.rows_read) / st.height;
  if (fraction < std::min(1.0f, flags.min_fraction)) return false;
  if (st.rows_read != st.height) {
    std::memset(st.out + static_cast<int64_t>(st.rows_read) * st.stride, 0,
                static_cast<int64_t>(st.height - st.rows_read) * st.stride);
  }
  return true;
}

bool JpegShape(std::string_view data, int* height, int* width,
               int* components) {
  if (data.empty()) return false;
  jpeg_decompress_struct cinfo;
  ErrorMgr err;
  MemSource src;
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = ErrorExit;
  err.pub.output_message = SilentMessage;
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  jpeg_create_decompress(&cinfo);
  SetSource(&cinfo, &src, data, false);
  jpeg_read_header(&cinfo, TRUE);
  jpeg_start_decompress(&cinfo);
  *width = cinfo.output_width;
  *height = cinfo.output_height;
  *components = cinfo.output_components;
  jpeg_destroy_decompress(&cinfo);
  return true;
}

namespace {

struct StringDest {
  jpeg_destination_mgr pub;
  JOCTET* buffer;
  size_t size;
  std::string* out;
};

void InitDest(j_compress_ptr cinfo) {
  StringDest* d = reinterpret_cast<StringDest*>(cinfo->dest);
  d->pub.next_output_byte = d->buffer;
  d->pub.free_in_buffer = d->size;
}

boolean EmptyOutputBuffer(j_compress_ptr cinfo) {
  StringDest* d = reinterpret_cast<StringDest*>(cinfo->dest);
  d->out->append(reinterpret_cast<const char*>(d->buffer), d->size);
  d->pub.next_output_byte = d->buffer;
  d->pub.free_in_buffer = d->size;
  return TRUE;
}

void TermDest(j_compress_ptr cinfo) {
  StringDest* d = reinterpret_cast<StringDest*>(cinfo->dest);
  d->out->append(reinterpret_cast<const char*>(d->buffer),
                 d->size - d->pub.free_in_buffer);
}

void SetParams(jpeg_compress_struct* cinfo, int width, int height,
               const JpegEncodeFlags& flags) {
  cinfo->image_width = width;
  cinfo->image_height = height;
  cinfo->input_components = flags.channels;
  cinfo->in_color_space = flags.channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(cinfo);
  if (flags.optimize_size) cinfo->optimize_coding = TRUE;
  cinfo->density_unit = flags.density_unit;
  cinfo->X_density = flags.x_density;
  cinfo->Y_density = flags.y_density;
  jpeg_set_quality(cinfo, flags.quality, TRUE);
  if (flags.progressive) jpeg_simple_progression(cinfo);
  if (!flags.chroma_downsampling) {
    for (int i = 0; i < cinfo->num_components; ++i) {
      cinfo->comp_info[i].h_samp_factor = 1;
      cinfo->comp_info[i].v_samp_factor = 1;
    }
  }
}

void WriteXmp(jpeg_compress_struct* cinfo, const std::string& xmp,
              JOCTET* packet) {
  static const char kNamespace[] = "http://ns.adobe.com/xap/1.0/";
  const size_t ns = sizeof(kNamespace);  // with its terminating zero
  std::memcpy(packet, kNamespace, ns);
  std::memcpy(packet + ns, xmp.data(), xmp.size());
  jpeg_write_marker(cinfo, JPEG_APP0 + 1, packet, ns + xmp.size());
}

}  // namespace

bool EncodeJpeg(const uint8_t* image, int width, int height,
                const JpegEncodeFlags& flags, std::string* out) {
  out->clear();
  if (width <= 0 || height <= 0) return false;
  if (static_cast<int64_t>(width) * height >= (int64_t{1} << 29)) return false;
  jpeg_compress_struct cinfo;
  ErrorMgr err;
  StringDest dest;
  dest.size = std::min(width * height * flags.channels, 1 << 20);
  dest.buffer = new JOCTET[dest.size];
  dest.out = out;
  JOCTET* xmp = nullptr;
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = ErrorExit;
  err.pub.output_message = SilentMessage;
  if (setjmp(err.jump)) {
    out->clear();
    delete[] dest.buffer;
    delete[] xmp;
    jpeg_destroy_compress(&cinfo);
    return false;
  }
  jpeg_create_compress(&cinfo);
  dest.pub.init_destination = InitDest;
  dest.pub.empty_output_buffer = EmptyOutputBuffer;
  dest.pub.term_destination = TermDest;
  cinfo.dest = &dest.pub;
  SetParams(&cinfo, width, height, flags);
  jpeg_start_compress(&cinfo, TRUE);
  if (!flags.xmp_metadata.empty()) {
    xmp = new JOCTET[flags.xmp_metadata.size() + 64];
    WriteXmp(&cinfo, flags.xmp_metadata, xmp);
  }
  const int row = width * flags.channels;
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW r = const_cast<JSAMPLE*>(image + cinfo.next_scanline * row);
    jpeg_write_scanlines(&cinfo, &r, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  delete[] dest.buffer;
  delete[] xmp;
  return true;
}

}  // namespace dfg
